package vindex

import (
	"context"
	"fmt"
	"math"
	"os"
	"sort"
	"testing"

	"github.com/odekmem/odekmem/internal/embed"
)

// TestLocomoTune is the tuning harness behind the defaults (BM25 k1/b, the
// fusion mix and the gate level); it is skipped unless LOCOMO_TUNE is set:
//
//	LOCOMO_TUNE=1 go test -run LocomoTune -v ./memcore/vindex
//
// For the fused score f = 0.35·cos + 0.65·lex (the measured best mix; w in
// 0.55–0.7 is a plateau) it prints gated recall, the share of random
// question/turn pairs above each candidate gate level and the share of
// evidence turns above it. The chosen level f = 0.06 maps to Sim 0.55:
// S·f = ln(1/0.45) with S = 13.3, hence τ = 1/(0.35·S) = 0.2146 and
// w = 0.65·S = 8.65.
type tuneQ struct {
	cat   int
	ev    []string
	cands []Candidate
}

func collectTune(t *testing.T, stores []*locomoStore, n int) []tuneQ {
	var out []tuneQ
	for _, st := range stores {
		h := NewHybrid(st.ex, st.lex, nil, HybridOptions{})
		for _, qa := range st.conv.QA {
			if qa.Category < 1 || qa.Category > 4 {
				continue
			}
			q, _ := st.emb.Embed(context.Background(), []string{qa.Question})
			out = append(out, tuneQ{qa.Category, qa.Evidence, h.Candidates(q[0], qa.Question, n, nil)})
		}
	}
	return out
}

func scoreTune(qs []tuneQ, f func(c Candidate) float64) float64 {
	var m metrics
	for _, q := range qs {
		cs := append([]Candidate(nil), q.cands...)
		sc := make(map[string]float64, len(cs))
		for _, c := range cs {
			sc[c.ID] = f(c)
		}
		sort.SliceStable(cs, func(i, j int) bool { return sc[cs[i].ID] > sc[cs[j].ID] })
		var ranked []string
		for _, c := range cs {
			if !math.IsInf(sc[c.ID], -1) {
				ranked = append(ranked, c.ID)
			}
		}
		m.add(q.cat, ranked, q.ev)
	}
	return m.R()
}

func TestLocomoTune(t *testing.T) {
	if os.Getenv("LOCOMO_TUNE") == "" {
		t.Skip("set LOCOMO_TUNE=1")
	}
	convs := loadLocomo(t)
	emb := embed.NewHash(0)
	for _, kb := range [][2]float64{{0.6, 0.2}} {
		stores := buildLocomo(t, convs, emb, true)
		for _, st := range stores {
			st.lex = NewBM25Params(kb[0], kb[1])
			for _, d := range st.conv.turns(t) {
				st.lex.Add(d.ID, d.Text)
			}
		}
		vec := evalLocomo(t, stores, modeVector, HybridOptions{}, 0)
		bm := evalLocomo(t, stores, modeBM25, HybridOptions{}, 0)
		qs := collectTune(t, stores, 40)
		line := ""
		for _, w := range []float64{0.5, 0.55, 0.6, 0.65, 0.7, 0.75} {
			line += fmt.Sprintf(" w%.2f=%.4f", w, scoreTune(qs, func(c Candidate) float64 { return (1-w)*float64(c.Cosine) + w*c.Lex }))
		}
		t.Logf("%s bm25 %v vec %.4f bm %.4f lin:%s", emb.Fingerprint(), kb, vec.m.R(), bm.m.R(), line)
		// distributions for w=0.65
		var ev, evTop, rnd, rcos, rlex, ecos, elex []float32
		for _, st := range stores {
			ids := st.ex.IDs()
			h := NewHybrid(st.ex, st.lex, nil, HybridOptions{})
			for qi, qa := range st.conv.QA {
				if qa.Category < 1 || qa.Category > 4 {
					continue
				}
				q, _ := st.emb.Embed(context.Background(), []string{qa.Question})
				w, _ := st.ex.Query(q[0])
				evs := map[string]bool{}
				for _, e := range qa.Evidence {
					evs[normEvidence(e)] = true
				}
				cs := h.Candidates(q[0], qa.Question, 40, nil)
				for _, c := range cs {
					if evs[c.ID] {
						f := 0.35*c.Cosine + 0.65*float32(c.Lex)
						ev = append(ev, f)
						ecos = append(ecos, c.Cosine)
						elex = append(elex, float32(c.Lex))
					}
				}
				for j := 0; j < 5; j++ {
					rid := ids[(qi*7919+j*104729+13)%len(ids)]
					if evs[rid] {
						continue
					}
					cos, _ := st.ex.CosineWeighted(w, rid)
					lex := lexNormFor(st.lex, qa.Question, rid)
					rnd = append(rnd, 0.35*cos+0.65*float32(lex))
					rcos = append(rcos, cos)
					rlex = append(rlex, float32(lex))
				}
				_ = evTop
			}
		}
		for _, fg := range []float64{0.06, 0.08, 0.1, 0.12, 0.14, 0.16, 0.2} {
			r := scoreTune(qs, func(c Candidate) float64 {
				f := 0.35*float64(c.Cosine) + 0.65*c.Lex
				if f < fg {
					return math.Inf(-1)
				}
				return f
			})
			t.Logf("  f_gate %.2f: gated recall %.4f, random above %.2f%%, evidence-in-pool above %.1f%%", fg, r, 100*fracAbove(rnd, float32(fg)), 100*fracAbove(ev, float32(fg)))
		}
		t.Logf("  evidence f:%s", quantiles(ev, .1, .25, .5, .75, .9))
		t.Logf("  random   f:%s", quantiles(rnd, .5, .9, .95, .99, .995))
		t.Logf("  evidence cos:%s lex:%s", quantiles(ecos, .1, .25, .5, .75), quantiles(elex, .1, .25, .5, .75))
		t.Logf("  random   cos:%s lex:%s", quantiles(rcos, .5, .9, .99), quantiles(rlex, .5, .9, .99))
	}
}
