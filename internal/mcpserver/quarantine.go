package mcpserver

import (
	"context"
	"sort"

	"github.com/odekmem/odekmem/memcore"
	"github.com/odekmem/odekmem/memcore/embed"
)

// QuarantineHit is one search_quarantine result.
type QuarantineHit struct {
	Entry memcore.QuarantinedAtom
	Score float64
}

// quarEmbedder is the offline hash embedder: quarantined text is embedded
// transiently, in memory, for this one query; it never enters the store's
// recallable index (the design's taint quarantine) and is never sent to a
// network embedder.
var quarEmbedder = embed.NewHash(768)

// SearchQuarantine ranks quarantined entries by cosine similarity to query
// and returns the top k with a positive score.
func SearchQuarantine(ctx context.Context, st *memcore.Store, query string, k int) ([]QuarantineHit, error) {
	qs, err := st.Quarantined()
	if err != nil {
		return nil, err
	}
	if len(qs) == 0 {
		return nil, nil
	}
	texts := make([]string, 0, len(qs)+1)
	texts = append(texts, query)
	for _, q := range qs {
		texts = append(texts, q.Text)
	}
	vecs, err := quarEmbedder.Embed(ctx, texts)
	if err != nil {
		return nil, err
	}
	qv := vecs[0]
	hits := make([]QuarantineHit, 0, len(qs))
	for i, q := range qs {
		var dot float32
		for j, x := range vecs[i+1] {
			dot += x * qv[j]
		}
		if s := float64(quarEmbedder.Calibrate(dot)); s > 0 {
			hits = append(hits, QuarantineHit{Entry: q, Score: s})
		}
	}
	sort.SliceStable(hits, func(i, j int) bool { return hits[i].Score > hits[j].Score })
	if len(hits) > k {
		hits = hits[:k]
	}
	return hits, nil
}
