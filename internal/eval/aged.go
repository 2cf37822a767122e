package eval

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/odekmem/odekmem/internal/vocab"
	"github.com/odekmem/odekmem/memcore"
)

// AgedFixture is the data of `odekmem eval aged` (testdata/aged/aged.json):
// atoms with a type and an age, and questions each answered by one atom.
type AgedFixture struct {
	Now       time.Time      `json:"now"`
	Atoms     []AgedAtom     `json:"atoms"`
	Questions []AgedQuestion `json:"questions"`
}

// AgedAtom is one fixture atom; Key names it for the questions.
type AgedAtom struct {
	Key     string  `json:"key"`
	Type    string  `json:"type"`
	Text    string  `json:"text"`
	AgeDays float64 `json:"age_days"`
}

// AgedQuestion is a question and the key of the atom that answers it.
type AgedQuestion struct {
	Question string `json:"question"`
	Answer   string `json:"answer"`
}

// ParseAged reads and checks an aged fixture: every key unique, every
// type known, every age non-negative, every answer an atom of the fixture.
func ParseAged(r io.Reader) (AgedFixture, error) {
	var f AgedFixture
	dec := json.NewDecoder(io.LimitReader(r, 64<<20))
	if err := dec.Decode(&f); err != nil {
		return f, fmt.Errorf("aged fixture: invalid JSON: %w", err)
	}
	if f.Now.IsZero() {
		return f, fmt.Errorf("aged fixture: missing \"now\"")
	}
	keys := map[string]bool{}
	for i, a := range f.Atoms {
		switch {
		case a.Key == "":
			return f, fmt.Errorf("aged fixture: atom %d has no key", i+1)
		case keys[a.Key]:
			return f, fmt.Errorf("aged fixture: duplicate key %q", a.Key)
		case !vocab.ValidType(a.Type):
			return f, fmt.Errorf("aged fixture: atom %q has unknown type %q", a.Key, a.Type)
		case a.AgeDays < 0 || a.AgeDays != a.AgeDays:
			return f, fmt.Errorf("aged fixture: atom %q has age %v days", a.Key, a.AgeDays)
		}
		keys[a.Key] = true
	}
	if len(f.Questions) == 0 {
		return f, fmt.Errorf("aged fixture: no questions")
	}
	for i, q := range f.Questions {
		if !keys[q.Answer] {
			return f, fmt.Errorf("aged fixture: question %d answers with unknown key %q", i+1, q.Answer)
		}
	}
	return f, nil
}

// AgedReport is the result of an aged evaluation.
type AgedReport struct {
	Atoms     int     `json:"atoms"`
	Questions int     `json:"questions"`
	Top1      float64 `json:"top1"`
	Top3      float64 `json:"top3"`
	MRR       float64 `json:"mrr_at_10"`
	// Misses are the questions whose answer was not first, with the atom
	// that was first (empty when nothing passed the gate) and the answer's
	// rank (0 = not in the top 10).
	Misses      []AgedMiss `json:"misses,omitempty"`
	Fingerprint string     `json:"fingerprint"`
}

// AgedMiss is one question whose answer was not ranked first.
type AgedMiss struct {
	Question string `json:"question"`
	Rank     int    `json:"rank"`
	First    string `json:"first"`
}

// RunAged builds one store holding the fixture's atoms (user_said, created
// age_days before the fixture's now, on a clock stopped at now), asks every
// question through Store.Search (the real recall path with the store's
// configuration: gate, per-type decay, composite) and reports how often
// the answer is first and in the top 3.
func RunAged(ctx context.Context, f AgedFixture, o Options) (AgedReport, error) {
	var rep AgedReport
	dir, err := os.MkdirTemp("", "odekmem-aged-")
	if err != nil {
		return rep, err
	}
	defer os.RemoveAll(dir)
	now := f.Now.UTC()
	opts := memcore.Options{Config: o.Config, Now: func() time.Time { return now }}
	if o.Embedder != nil {
		emb, err := o.Embedder()
		if err != nil {
			return rep, err
		}
		opts.Embedder = emb
	}
	st, err := memcore.Open(ctx, dir, opts)
	if err != nil {
		return rep, err
	}
	defer st.Close(context.Background())
	stats, err := st.Stats(ctx)
	if err != nil {
		return rep, err
	}
	rep.Fingerprint = stats.Index.Fingerprint
	reqs := make([]memcore.AddRequest, len(f.Atoms))
	for i, a := range f.Atoms {
		reqs[i] = memcore.AddRequest{Text: a.Text, Type: memcore.Type(a.Type), Source: memcore.SourceUserSaid,
			CreatedAt: now.Add(-time.Duration(a.AgeDays * 24 * float64(time.Hour)))}
	}
	results, errs, err := st.AddBatch(ctx, reqs)
	if err != nil {
		return rep, err
	}
	byID := map[string]string{} // atom id → key
	text := map[string]string{}
	for i, r := range results {
		if errs[i] != nil {
			return rep, fmt.Errorf("aged fixture atom %q: %w", f.Atoms[i].Key, errs[i])
		}
		if r.Quarantined {
			return rep, fmt.Errorf("aged fixture atom %q was quarantined", f.Atoms[i].Key)
		}
		byID[r.Atom.ID] = f.Atoms[i].Key
		text[f.Atoms[i].Key] = f.Atoms[i].Text
	}
	rep.Atoms = len(f.Atoms)
	var top1, top3, mrr float64
	for _, q := range f.Questions {
		res, err := st.Search(ctx, q.Question, memcore.SearchOptions{K: 10})
		if err != nil {
			return rep, err
		}
		rank := 0
		for i, r := range res {
			if byID[r.Atom.ID] == q.Answer {
				rank = i + 1
				break
			}
		}
		rep.Questions++
		if rank == 1 {
			top1++
		}
		if rank >= 1 && rank <= 3 {
			top3++
		}
		if rank > 0 {
			mrr += 1 / float64(rank)
		}
		if rank != 1 {
			m := AgedMiss{Question: q.Question, Rank: rank}
			if len(res) > 0 {
				m.First = res[0].Atom.Text
			}
			rep.Misses = append(rep.Misses, m)
		}
	}
	n := float64(rep.Questions)
	rep.Top1, rep.Top3, rep.MRR = top1/n, top3/n, mrr/n
	return rep, nil
}
