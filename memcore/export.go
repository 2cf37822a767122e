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
)

// ExportRecord is one line of the JSONL export. Kind is "atom" (live),
// "quarantine", "user_model" or "link".
type ExportRecord struct {
	Kind string `json:"kind"`
	*Atom
	QuarantinedAt *time.Time `json:"quarantined_at,omitempty"`
	Reason        string     `json:"reason,omitempty"`
	UserModel     *UserModel `json:"user_model,omitempty"`
	A             string     `json:"a,omitempty"`
	B             string     `json:"b,omitempty"`
	LinkKind      string     `json:"link_kind,omitempty"`
}

// maxImportLine bounds one JSONL line.
const maxImportLine = 4 << 20

// Export writes the whole store as JSONL: live atoms, quarantine, the user
// model (with pending reviews) and association links. Import of the output
// into an empty store reproduces it exactly.
func (s *Store) Export(w io.Writer) error {
	bw := bufio.NewWriter(w)
	enc := json.NewEncoder(bw)
	enc.SetEscapeHTML(false)
	var err error
	s.read(func() {
		for _, e := range s.order {
			a := cloneAtom(e.atom)
			if err = enc.Encode(ExportRecord{Kind: "atom", Atom: &a}); err != nil {
				return
			}
		}
		for _, q := range s.quar {
			a, at := cloneAtom(q.Atom), q.QuarantinedAt
			if err = enc.Encode(ExportRecord{Kind: "quarantine", Atom: &a, QuarantinedAt: &at, Reason: q.Reason}); err != nil {
				return
			}
		}
		m := s.model.clone()
		if err = enc.Encode(ExportRecord{Kind: "user_model", UserModel: &m}); err != nil {
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
			if err = enc.Encode(ExportRecord{Kind: "link", A: a, B: b, LinkKind: s.graph.kinds[k]}); err != nil {
				return
			}
		}
	})
	if err != nil {
		return fmt.Errorf("export: %w", err)
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

// ImportResult counts what Import did.
type ImportResult struct {
	Live        int `json:"live"`
	Quarantined int `json:"quarantined"`
	Skipped     int `json:"skipped_existing"`
	Links       int `json:"links"`
	Pending     int `json:"pending"`
	// Refreshed counts atoms that matched a live one and refreshed it.
	Refreshed int `json:"refreshed"`
	// Evicted counts atoms removed to stay under the size cap.
	Evicted int      `json:"evicted"`
	Errors  []string `json:"errors,omitempty"`
}

// Import reads JSONL written by Export. Atoms keep their id, timestamps
// and source class, so tainted ones land in quarantine; every atom is
// scanned (a blocked one is quarantined as scan_rejected) and secrets are
// redacted. Atoms whose id exists already are skipped. A malformed line is
// reported with its line number and skipped; nothing already stored is
// touched.
func (s *Store) Import(ctx context.Context, r io.Reader) (res ImportResult, err error) {
	// Error messages quote values from the file: no secret in them.
	defer func() {
		for i := range res.Errors {
			res.Errors[i] = scanRedact(res.Errors[i])
		}
	}()
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), maxImportLine)
	var reqs []AddRequest
	var model *UserModel
	type link struct{ a, b, kind string }
	var links []link
	line := 0
	for sc.Scan() {
		line++
		b := bytes.TrimSpace(sc.Bytes())
		if len(b) == 0 {
			continue
		}
		var rec ExportRecord
		if err := json.Unmarshal(b, &rec); err != nil {
			res.Errors = append(res.Errors, fmt.Sprintf("line %d: invalid JSON: %v", line, err))
			continue
		}
		switch rec.Kind {
		case "atom", "quarantine", "":
			if rec.Atom == nil || rec.Atom.Text == "" {
				res.Errors = append(res.Errors, fmt.Sprintf("line %d: atom without text", line))
				continue
			}
			a := rec.Atom
			req := AddRequest{ID: a.ID, Text: a.Text, Type: a.Type, Source: a.SourceClass, Confidence: a.Confidence, Pin: a.Pin, Context: a.Context, CreatedAt: a.CreatedAt, Origin: a.Origin}
			if req.Source == "" {
				req.Source = SourceAgentGenerated // unknown provenance is never trusted
			}
			if rec.Kind == "quarantine" || rec.Kind == "" && (rec.QuarantinedAt != nil || rec.Reason != "") {
				req.QuarantineReason = rec.Reason
				if rec.QuarantinedAt != nil {
					req.QuarantinedAt = *rec.QuarantinedAt
				}
				if !IsTainted(req.Source) && req.QuarantineReason == "" {
					req.QuarantineReason = "tainted"
				}
			}
			if a.ID != "" && !ValidID(a.ID) {
				res.Errors = append(res.Errors, fmt.Sprintf("line %d: invalid id %q", line, a.ID))
				continue
			}
			reqs = append(reqs, req)
		case "user_model":
			model = rec.UserModel
		case "link":
			if !ValidID(rec.A) || !ValidID(rec.B) {
				res.Errors = append(res.Errors, fmt.Sprintf("line %d: link with invalid ids", line))
				continue
			}
			links = append(links, link{rec.A, rec.B, rec.LinkKind})
		default:
			res.Errors = append(res.Errors, fmt.Sprintf("line %d: unknown kind %q", line, rec.Kind))
		}
	}
	if err := sc.Err(); err != nil {
		return res, fmt.Errorf("import: line %d: %w", line+1, err)
	}
	results, errs, err := s.AddBatch(ctx, reqs)
	if err != nil {
		return res, fmt.Errorf("import: %w", err)
	}
	for i, r := range results {
		res.Evicted += len(r.Evicted)
		switch {
		case errs[i] != nil:
			res.Errors = append(res.Errors, fmt.Sprintf("atom %s: %v", reqs[i].ID, errs[i]))
		case r.Duplicate:
			res.Skipped++
		case r.Quarantined:
			res.Quarantined++
		case r.Refreshed:
			res.Refreshed++
		default:
			res.Live++
		}
	}
	err = s.withWrite(func() error {
		changed := false
		for _, l := range links {
			if (s.byID[l.a] != nil || s.quarIndex(l.a) >= 0) && (s.byID[l.b] != nil || s.quarIndex(l.b) >= 0) {
				if s.graph.link(l.a, l.b, l.kind) {
					res.Links++
					changed = true
				}
			}
		}
		if changed {
			if err := s.writeAssocLocked(); err != nil {
				return err
			}
		}
		if model != nil {
			m := s.model.clone()
			for _, kv := range model.Values() {
				if r := scanText(kv[1]); r {
					res.Errors = append(res.Errors, fmt.Sprintf("user model %s: blocked by scanner", kv[0]))
					continue
				}
				if cur, _ := m.Get(kv[0]); cur == "" || kv[0][:9] == "technical" || kv[0] == "interaction.common_openers" {
					m.Apply(kv[0], kv[1])
				}
			}
			if model.Version > m.Version {
				m.Version = model.Version
			}
			have := map[string]bool{}
			for _, p := range m.Pending {
				have[p.ID] = true
			}
			for _, p := range model.Pending {
				if have[p.ID] || !ValidID(p.ID) || scanText(p.Value) || scanText(p.Evidence) {
					continue
				}
				m.Pending = append(m.Pending, p)
				res.Pending++
			}
			sortPending(m.Pending)
			return s.saveModelLocked(m)
		}
		return nil
	})
	return res, err
}
