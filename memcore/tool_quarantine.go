package memcore

import (
	"context"
	"sort"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/odekmem/odekmem/internal/embed"
	"github.com/odekmem/odekmem/internal/scan"
)

// ToolEntry is a quarantine entry as the tool shows it to a model.
type ToolEntry struct {
	ID          string
	SourceClass Source
	Type        Type
	// Reason is why it waits (secrets redacted, control characters
	// removed).
	Reason        string
	QuarantinedAt time.Time
	// Text is the entry wrapped as untrusted content (the wrapper the
	// hook puts around what it injects), secrets redacted and hidden
	// characters spelled out. An entry the scanner blocks is withheld:
	// Text only says so, with the reason, and Withheld is set.
	Text     string
	Withheld bool
	// Score is the similarity to Quarantine's query (0 without one).
	Score float64
}

// entry is q as the tool shows it.
func (t *Tool) entry(q QuarantinedAtom) ToolEntry {
	reason, _ := scan.Redact(q.Reason)
	e := ToolEntry{ID: q.ID, SourceClass: q.SourceClass, Type: q.Type, Reason: scan.Visible(reason), QuarantinedAt: q.QuarantinedAt}
	if t.store.verdicts.Blocked(q.Text) {
		// The reviewer sees it in the TUI; a model only learns that it
		// exists.
		e.Text, e.Withheld = "(withheld: "+e.Reason+")", true
	} else {
		e.Text = untrusted("quarantine_"+string(q.SourceClass), q.Text)
	}
	return e
}

// quarEmbedder is the offline hash embedder: quarantined text is embedded
// transiently, in memory, for one query; it never enters the store's
// recallable index (the design's taint quarantine) and is never sent to a
// network embedder.
var quarEmbedder = embed.NewHash(768)

// Quarantine shows the model what waits for the person's review, read-only
// (only the person can promote): with a blank query, the newest entries
// first; with a query, the entries ranked by similarity to it, only those
// with a positive score. It returns at most limit entries (all when
// limit ≤ 0) and how many there are in all (the whole quarantine, or every
// entry that matches the query). Quarantined text never enters the
// recallable index: a query embeds it here, in memory, by the offline
// embedder, for this one query. A query longer than ToolMaxQuery is
// refused.
func (t *Tool) Quarantine(ctx context.Context, query string, limit int) (entries []ToolEntry, total int, err error) {
	if err := ctx.Err(); err != nil {
		return nil, 0, err
	}
	if strings.TrimSpace(query) == "" {
		return t.listQuarantine(ctx, limit)
	}
	if n := utf8.RuneCountInString(query); n > ToolMaxQuery {
		return nil, 0, tooLong("query", n, ToolMaxQuery)
	}
	qs, err := t.store.Quarantined(ctx)
	if err != nil || len(qs) == 0 {
		return []ToolEntry{}, 0, err
	}
	texts := make([]string, 0, len(qs)+1)
	texts = append(texts, query)
	for _, q := range qs {
		texts = append(texts, q.Text)
	}
	vecs, err := quarEmbedder.Embed(ctx, texts)
	if err != nil {
		return nil, 0, err
	}
	type hit struct {
		q     QuarantinedAtom
		score float64
	}
	qv := vecs[0]
	hits := make([]hit, 0, len(qs))
	for i, q := range qs {
		var dot float32
		for j, x := range vecs[i+1] {
			dot += x * qv[j]
		}
		if s := float64(quarEmbedder.Calibrate(dot)); s > 0 {
			hits = append(hits, hit{q, s})
		}
	}
	sort.SliceStable(hits, func(i, j int) bool { return hits[i].score > hits[j].score })
	total = len(hits)
	if limit > 0 && len(hits) > limit {
		hits = hits[:limit]
	}
	out := make([]ToolEntry, 0, len(hits))
	for _, h := range hits {
		e := t.entry(h.q)
		e.Score = h.score
		out = append(out, e)
	}
	return out, total, nil
}

// listQuarantine is Quarantine without a query: the newest entries first.
func (t *Tool) listQuarantine(ctx context.Context, limit int) (entries []ToolEntry, total int, err error) {
	qs, err := t.store.Quarantined(ctx)
	if err != nil {
		return nil, 0, err
	}
	sort.SliceStable(qs, func(i, j int) bool { return qs[i].QuarantinedAt.After(qs[j].QuarantinedAt) })
	total = len(qs)
	if limit > 0 && len(qs) > limit {
		qs = qs[:limit]
	}
	entries = make([]ToolEntry, 0, len(qs))
	for _, q := range qs {
		entries = append(entries, t.entry(q))
	}
	return entries, total, nil
}
