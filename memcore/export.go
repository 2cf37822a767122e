package memcore

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"time"

	"github.com/odekmem/odekmem/internal/jsonsafe"
)

// exportRecord is one line of the JSONL export. Kind is "atom" (live),
// "quarantine", "user_model" or "link".
type exportRecord struct {
	Kind string `json:"kind"`
	*Atom
	QuarantinedAt *time.Time     `json:"quarantined_at,omitempty"`
	Reason        string         `json:"reason,omitempty"`
	UserModel     *userModelFile `json:"user_model,omitempty"`
	A             string         `json:"a,omitempty"`
	B             string         `json:"b,omitempty"`
	LinkKind      string         `json:"link_kind,omitempty"`
}

// Export writes the whole store as JSONL: live atoms, quarantine, the user
// model (with pending reviews) and association links. Import of the output
// into an empty store reproduces it exactly. The JSON is safe on a
// terminal: besides the control characters JSON escapes, DEL, C1
// controls, bidi and other invisible format characters are written as
// \uXXXX escapes (the decoded text is unchanged).
func (s *Store) Export(ctx context.Context, w io.Writer) error {
	bw := bufio.NewWriter(w)
	jw := jsonsafe.NewWriter(bw)
	enc := json.NewEncoder(jw)
	enc.SetEscapeHTML(false)
	var err error
	rerr := s.read(ctx, func() {
		for _, e := range s.order {
			a := cloneAtom(e.atom)
			if err = enc.Encode(exportRecord{Kind: "atom", Atom: &a}); err != nil {
				return
			}
		}
		for _, q := range s.quar {
			a, at := cloneAtom(q.Atom), q.QuarantinedAt
			if err = enc.Encode(exportRecord{Kind: "quarantine", Atom: &a, QuarantinedAt: &at, Reason: q.Reason}); err != nil {
				return
			}
		}
		m := s.model.clone()
		if err = enc.Encode(exportRecord{Kind: "user_model", UserModel: (*userModelFile)(&m)}); err != nil {
			return
		}
		var pairs []string
		for k := range s.graph.kinds {
			pairs = append(pairs, k)
		}
		seen := map[string]bool{}
		for id, ns := range s.graph.adj {
			for n := range ns {
				k := pairKey(id, n)
				if !seen[k] {
					seen[k] = true
					if _, ok := s.graph.kinds[k]; !ok {
						pairs = append(pairs, k)
					}
				}
			}
		}
		sort.Strings(pairs)
		for _, k := range pairs {
			a, b, _ := cutPair(k)
			if _, ok := s.graph.adj[a][b]; !ok {
				continue
			}
			if err = enc.Encode(exportRecord{Kind: "link", A: a, B: b, LinkKind: s.graph.kinds[k]}); err != nil {
				return
			}
		}
	})
	if rerr != nil {
		return rerr
	}
	if err != nil {
		return fmt.Errorf("export: %w", err)
	}
	if err := jw.Flush(); err != nil {
		return err
	}
	return bw.Flush()
}

func cutPair(k string) (string, string, bool) {
	i := bytes.IndexByte([]byte(k), '|')
	if i < 0 {
		return "", "", false
	}
	return k[:i], k[i+1:], true
}
