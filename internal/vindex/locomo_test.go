package vindex

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/odekmem/odekmem/internal/embed"
)

// LoCoMo evidence-retrieval harness (NOTES.md, "Numbers we hold ourselves
// to"): one document per dialogue turn ("Speaker: text"), every question of
// categories 1–4, top 10 of Hybrid.Candidates gated at Sim ≥ 0.55, evidence
// recall@10 averaged over questions.

type locomoTurn struct {
	Speaker string `json:"speaker"`
	DiaID   string `json:"dia_id"`
	Text    string `json:"text"`
}

type locomoQA struct {
	Question string          `json:"question"`
	Evidence []string        `json:"evidence"`
	Category int             `json:"category"`
	Answer   json.RawMessage `json:"answer"`
}

type locomoConv struct {
	SampleID     string                     `json:"sample_id"`
	QA           []locomoQA                 `json:"qa"`
	Conversation map[string]json.RawMessage `json:"conversation"`
}

type locomoDoc struct{ ID, Text string }

var sessionKey = regexp.MustCompile(`^session_(\d+)$`)

func (c *locomoConv) turns(t testing.TB) []locomoDoc {
	type sess struct {
		n     int
		turns []locomoTurn
	}
	var ss []sess
	for k, raw := range c.Conversation {
		m := sessionKey.FindStringSubmatch(k)
		if m == nil {
			continue
		}
		n, _ := strconv.Atoi(m[1])
		var turns []locomoTurn
		if err := json.Unmarshal(raw, &turns); err != nil {
			t.Fatalf("%s %s: %v", c.SampleID, k, err)
		}
		ss = append(ss, sess{n, turns})
	}
	sort.Slice(ss, func(i, j int) bool { return ss[i].n < ss[j].n })
	var docs []locomoDoc
	for _, s := range ss {
		for _, tr := range s.turns {
			docs = append(docs, locomoDoc{ID: tr.DiaID, Text: tr.Speaker + ": " + tr.Text})
		}
	}
	return docs
}

var evidenceID = regexp.MustCompile(`^D(\d+):(\d+)$`)

// normEvidence parses an evidence id leniently; malformed ids (e.g. "D8:6;
// D9:17" or a missing colon) come back as "" and count as unmatched.
func normEvidence(e string) string {
	m := evidenceID.FindStringSubmatch(strings.TrimSpace(e))
	if m == nil {
		return ""
	}
	a, _ := strconv.Atoi(m[1])
	b, _ := strconv.Atoi(m[2])
	return fmt.Sprintf("D%d:%d", a, b)
}

// testData is the evaluation data kept in the repository's testdata
// (see testdata/data/README.md for sources and licences).
func testData(t testing.TB) string {
	t.Helper()
	data := filepath.Join("..", "..", "testdata", "data")
	if _, err := os.Stat(filepath.Join(data, "locomo", "locomo-dev.json")); err != nil {
		t.Fatalf("locomo: evaluation data not found at testdata/data/locomo/locomo-dev.json in the repository: %v", err)
	}
	return data
}

func loadLocomo(t testing.TB) []locomoConv {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(testData(t), "locomo", "locomo-dev.json"))
	if err != nil {
		t.Fatal(err)
	}
	var convs []locomoConv
	if err := json.Unmarshal(b, &convs); err != nil {
		t.Fatalf("locomo-dev.json: %v", err)
	}
	return convs
}

type metrics struct {
	n                    int
	recall, hit, mrr     float64
	byCat                map[int]*metrics
	malformed, evidences int
}

func (m *metrics) add(cat int, ranked []string, evidence []string) {
	if m.byCat == nil {
		m.byCat = map[int]*metrics{}
	}
	for _, mm := range []*metrics{m, m.catM(cat)} {
		mm.n++
		pos := map[string]int{}
		for i, id := range ranked {
			if i >= 10 {
				break
			}
			if _, ok := pos[id]; !ok {
				pos[id] = i + 1
			}
		}
		found, first := 0, 0
		for _, e := range evidence {
			mm.evidences++
			id := normEvidence(e)
			if id == "" {
				mm.malformed++
				continue
			}
			if p, ok := pos[id]; ok {
				found++
				if first == 0 || p < first {
					first = p
				}
			}
		}
		if len(evidence) > 0 {
			mm.recall += float64(found) / float64(len(evidence))
		}
		if found > 0 {
			mm.hit++
			mm.mrr += 1 / float64(first)
		}
	}
}

func (m *metrics) catM(c int) *metrics {
	if m.byCat[c] == nil {
		m.byCat[c] = &metrics{}
	}
	return m.byCat[c]
}

func (m *metrics) R() float64 { return m.recall / float64(max(m.n, 1)) }
func (m *metrics) H() float64 { return m.hit / float64(max(m.n, 1)) }
func (m *metrics) M() float64 { return m.mrr / float64(max(m.n, 1)) }

func (m *metrics) String() string {
	s := fmt.Sprintf("recall@10 %.4f  hit@10 %.4f  MRR %.4f  (n=%d)", m.R(), m.H(), m.M(), m.n)
	for c := 1; c <= 4; c++ {
		if cm := m.byCat[c]; cm != nil {
			s += fmt.Sprintf("\n      cat %d: recall@10 %.4f hit@10 %.4f MRR %.4f (n=%d)", c, cm.R(), cm.H(), cm.M(), cm.n)
		}
	}
	return s
}

// locomoStore is one conversation's indexes.
type locomoStore struct {
	conv *locomoConv
	ex   *Exact
	lex  *BM25
	emb  embed.Embedder
}

func buildLocomo(t testing.TB, convs []locomoConv, emb embed.Embedder, idf bool) []*locomoStore {
	t.Helper()
	var out []*locomoStore
	for i := range convs {
		c := &convs[i]
		docs := c.turns(t)
		texts := make([]string, len(docs))
		for j, d := range docs {
			texts[j] = d.Text
		}
		vecs, err := emb.Embed(context.Background(), texts)
		if err != nil {
			t.Fatal(err)
		}
		st := &locomoStore{conv: c, ex: NewExact(emb.Dims(), Options{IDF: idf}), lex: NewBM25(), emb: emb}
		for j, d := range docs {
			if err := st.ex.Add(d.ID, vecs[j]); err != nil {
				t.Fatal(err)
			}
			st.lex.Add(d.ID, d.Text)
		}
		out = append(out, st)
	}
	return out
}

type evalMode int

const (
	modeHybrid evalMode = iota
	modeBM25
	modeVector
)

type evalResult struct {
	m            metrics
	relSim, rnd  []float32 // Sim of evidence turns in the pool / of random turns
	gatedOutRel  int       // evidence turns in the ungated top 10 removed by the gate
	emptyAnswers int       // questions with nothing above the gate
}

func evalLocomo(t testing.TB, stores []*locomoStore, mode evalMode, opts HybridOptions, gate float32) *evalResult {
	t.Helper()
	res := &evalResult{}
	for _, st := range stores {
		h := NewHybrid(st.ex, st.lex, st.emb.Calibrate, opts)
		ids := st.ex.IDs()
		for qi, qa := range st.conv.QA {
			if qa.Category < 1 || qa.Category > 4 {
				continue
			}
			var ranked []string
			switch mode {
			case modeBM25:
				for _, hit := range st.lex.Search(qa.Question, 10, nil) {
					ranked = append(ranked, hit.ID)
				}
			case modeVector:
				q, _ := st.emb.Embed(context.Background(), []string{qa.Question})
				hits, err := st.ex.Search(q[0], 10, nil)
				if err != nil {
					t.Fatal(err)
				}
				for _, hit := range hits {
					ranked = append(ranked, hit.ID)
				}
			case modeHybrid:
				q, _ := st.emb.Embed(context.Background(), []string{qa.Question})
				cands := h.Candidates(q[0], qa.Question, 40, nil)
				ev := map[string]bool{}
				for _, e := range qa.Evidence {
					ev[normEvidence(e)] = true
				}
				for i, c := range cands {
					if ev[c.ID] {
						res.relSim = append(res.relSim, c.Sim)
						if c.Sim < gate && i < 10 {
							res.gatedOutRel++
						}
					}
					if c.Sim >= gate && len(ranked) < 10 {
						ranked = append(ranked, c.ID)
					}
				}
				if len(ranked) == 0 {
					res.emptyAnswers++
				}
				// A random turn's Sim against this question (deterministic).
				rid := ids[(qi*7919+13)%len(ids)]
				if !ev[rid] {
					w, _ := st.ex.Query(q[0])
					cos, _ := st.ex.CosineWeighted(w, rid)
					lex := lexNormFor(st.lex, qa.Question, rid)
					res.rnd = append(res.rnd, h.Sim(cos, lex))
				}
			}
			res.m.add(qa.Category, ranked, qa.Evidence)
		}
	}
	return res
}

func lexNormFor(x *BM25, query, id string) float64 {
	_, scores, bound := x.searchAll(query, 1, nil, map[string]float64{id: 0})
	if bound == 0 {
		return 0
	}
	return scores[id] / bound
}

func quantiles(xs []float32, ps ...float64) string {
	s := append([]float32(nil), xs...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	var b strings.Builder
	for _, p := range ps {
		if len(s) == 0 {
			break
		}
		fmt.Fprintf(&b, " p%02.0f=%.3f", p*100, s[min(len(s)-1, int(p*float64(len(s))))])
	}
	return b.String()
}

func fracAbove(xs []float32, g float32) float64 {
	n := 0
	for _, x := range xs {
		if x >= g {
			n++
		}
	}
	return float64(n) / float64(max(len(xs), 1))
}

func TestLocomoRetrieval(t *testing.T) {
	convs := loadLocomo(t)
	emb := embed.NewHash(0)
	stores := buildLocomo(t, convs, emb, true)
	bm := evalLocomo(t, stores, modeBM25, HybridOptions{}, 0)
	vec := evalLocomo(t, stores, modeVector, HybridOptions{}, 0)
	hy := evalLocomo(t, stores, modeHybrid, DefaultHybridOptions(emb.Sparse()), embed.DefaultMinScore)
	ungated := evalLocomo(t, stores, modeHybrid, DefaultHybridOptions(emb.Sparse()), 0)
	t.Logf("embedder %s, gate %.2f", emb.Fingerprint(), embed.DefaultMinScore)
	t.Logf("BM25 only:  %s", &bm.m)
	t.Logf("hash only:  %s", &vec.m)
	t.Logf("hybrid:     %s", &hy.m)
	t.Logf("hybrid without the gate: recall@10 %.4f", ungated.m.R())
	t.Logf("Sim of evidence turns in the pool:%s; %.1f%% ≥ gate", quantiles(hy.relSim, .1, .25, .5, .75, .9), 100*fracAbove(hy.relSim, embed.DefaultMinScore))
	t.Logf("Sim of random turns:              %s; %.1f%% ≥ gate", quantiles(hy.rnd, .5, .9, .99), 100*fracAbove(hy.rnd, embed.DefaultMinScore))
	t.Logf("evidence turns in the ungated top 10 removed by the gate: %d; questions with nothing above the gate: %d", hy.gatedOutRel, hy.emptyAnswers)
	if got := hy.m.R(); got < 0.62 {
		t.Errorf("hybrid evidence recall@10 = %.4f, want ≥ 0.62", got)
	}
}
