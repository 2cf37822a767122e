package vindex

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

func TestDot4I8MatchesGeneric(t *testing.T) {
	r := rand.New(rand.NewPCG(8, 8))
	for _, d := range []int{1, 15, 16, 32, 48, 768, 770} {
		q := randUnit(r, d)
		m := make([]int8, 4*d)
		for i := range m {
			m[i] = int8(r.IntN(255) - 127)
		}
		var out [4]float32
		dot4I8(q, m, &out)
		for i := range 4 {
			want := dotI8Generic(q, m[i*d:(i+1)*d])
			var ref float64
			for j := range d {
				ref += float64(q[j]) * float64(m[i*d+j])
			}
			if diff := out[i] - want; diff > 1e-3 || diff < -1e-3 {
				t.Fatalf("d=%d row %d: %v want %v", d, i, out[i], want)
			}
			if diff := float64(want) - ref; math.Abs(diff) > 1e-3 {
				t.Fatalf("d=%d row %d: generic %v want %v", d, i, want, ref)
			}
			if got := dotI8(q, m[i*d:(i+1)*d]); math.Abs(float64(got-want)) > 1e-3 {
				t.Fatalf("d=%d row %d: dotI8 %v want %v", d, i, got, want)
			}
		}
	}
}

// quantRoundTrip is the vector cache's round trip (memcore/vectors.go):
// int8 with a max-abs/127 scale, dequantised and renormalised.
func quantRoundTrip(v []float32) []float32 {
	var maxAbs float32
	for _, x := range v {
		maxAbs = max(maxAbs, float32(math.Abs(float64(x))))
	}
	out := make([]float32, len(v))
	if maxAbs == 0 {
		return out
	}
	scale := maxAbs / 127
	var ss float64
	for i, x := range v {
		out[i] = float32(math.Round(float64(x/scale))) * scale
		ss += float64(out[i]) * float64(out[i])
	}
	inv := float32(1 / math.Sqrt(ss))
	for i := range out {
		out[i] *= inv
	}
	return out
}

// TestExactInt8MatchesFloatReference checks the int8 matrix against a
// float32 reference: vectors that already went through the cache's int8
// round trip are stored losslessly, so every cosine matches the float dot
// product and the ranking is the float ranking.
func TestExactInt8MatchesFloatReference(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 9))
	const n, d = 1003, 768
	e := NewExact(d, Options{})
	ref := make([][]float32, n)
	ids := make([]string, n)
	for i := range ref {
		ids[i] = fmt.Sprintf("id%04d", i)
		ref[i] = quantRoundTrip(randUnit(r, d))
		if i%2 == 0 {
			if err := e.Add(ids[i], ref[i]); err != nil {
				t.Fatal(err)
			}
		}
	}
	var odd []string
	var oddVecs [][]float32
	for i := 1; i < n; i += 2 {
		odd, oddVecs = append(odd, ids[i]), append(oddVecs, ref[i])
	}
	if err := e.AddMany(odd, oddVecs); err != nil {
		t.Fatal(err)
	}
	for i, id := range ids {
		v, ok := e.Vector(id)
		if !ok {
			t.Fatalf("%s missing", id)
		}
		for j := range v {
			if diff := v[j] - ref[i][j]; diff > 1e-6 || diff < -1e-6 {
				t.Fatalf("%s[%d] = %v, reference %v", id, j, v[j], ref[i][j])
			}
		}
	}
	for range 20 {
		q := randUnit(r, d)
		got, err := e.Search(q, 40, nil)
		if err != nil {
			t.Fatal(err)
		}
		want := make([]Hit, n)
		for i := range ref {
			want[i] = Hit{ids[i], dotGeneric(q, ref[i])}
		}
		sortHits(want)
		want = want[:40]
		for i := range got {
			if diff := got[i].Cosine - want[i].Cosine; diff > 1e-5 || diff < -1e-5 {
				t.Fatalf("hit %d: cosine %v, reference %v", i, got[i].Cosine, want[i].Cosine)
			}
			if got[i].ID != want[i].ID && math.Abs(float64(got[i].Cosine-want[i].Cosine)) > 1e-5 {
				t.Fatalf("hit %d: %s, reference %s", i, got[i].ID, want[i].ID)
			}
		}
		if c, ok := e.CosineWeighted(q, want[5].ID); !ok || math.Abs(float64(c-want[5].Cosine)) > 1e-5 {
			t.Fatalf("CosineWeighted %v want %v", c, want[5].Cosine)
		}
	}
}

// TestExactAddQuantized checks the bulk-load path: int8 rows are the same
// vectors Add stores for their float round trip, duplicates replace.
func TestExactAddQuantized(t *testing.T) {
	r := rand.New(rand.NewPCG(10, 10))
	const d = 32
	for _, idf := range []bool{false, true} {
		a, b := NewExact(d, Options{IDF: idf}), NewExact(d, Options{IDF: idf})
		var ids []string
		var rows []int8
		for i := range 50 {
			id := fmt.Sprintf("x%d", i%45) // five duplicates
			v := randUnit(r, d)
			q := make([]int8, d)
			quantizeRow(q, v)
			if i%5 == 0 {
				q[3] = 0
			}
			ids, rows = append(ids, id), append(rows, q...)
			f := make([]float32, d)
			for j, x := range q {
				f[j] = float32(x) * 0.01
			}
			a.Add(id, f)
		}
		b.Reserve(10)
		if err := b.AddQuantized(ids, rows); err != nil {
			t.Fatal(err)
		}
		if err := b.AddQuantized(ids[:1], rows); err == nil {
			t.Fatal("length mismatch accepted")
		}
		if a.Len() != 45 || b.Len() != 45 || fmt.Sprint(a.df) != fmt.Sprint(b.df) {
			t.Fatalf("len %d %d df %v %v", a.Len(), b.Len(), a.df, b.df)
		}
		for _, id := range a.IDs() {
			va, _ := a.Vector(id)
			vb, _ := b.Vector(id)
			if fmt.Sprint(va) != fmt.Sprint(vb) {
				t.Fatalf("%s differs", id)
			}
		}
		q := randUnit(r, d)
		ha, _ := a.Search(q, 10, nil)
		hb, _ := b.Search(q, 10, nil)
		if fmt.Sprint(ha) != fmt.Sprint(hb) {
			t.Fatalf("search differs\n%v\n%v", ha, hb)
		}
	}
}

func TestExactQuantizeEdgeCases(t *testing.T) {
	e := NewExact(4, Options{IDF: true})
	inf := float32(math.Inf(1))
	nan := float32(math.NaN())
	for id, v := range map[string][]float32{
		"zero": {0, 0, 0, 0},
		"inf":  {inf, 1, 0, 0},
		"nan":  {nan, 0, 2, 0},
		"tiny": {1e-30, -1e-30, 0, 0},
	} {
		if err := e.Add(id, v); err != nil {
			t.Fatal(err)
		}
		got, _ := e.Vector(id)
		for _, x := range got {
			if x != x || math.IsInf(float64(x), 0) {
				t.Fatalf("%s stored %v", id, got)
			}
		}
	}
	if v, _ := e.Vector("nan"); v[2] != 1 {
		t.Fatalf("nan row %v", v)
	}
	hits, _ := e.Search([]float32{0, 0, 1, 0}, 4, nil)
	if len(hits) != 4 || hits[0].ID != "nan" || hits[0].Cosine != 1 {
		t.Fatalf("%v", hits)
	}
}

func TestBM25AddManyMatchesAdd(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 11))
	a, b := NewBM25(), NewBM25()
	var ids, texts []string
	for i := range 700 {
		id := fmt.Sprintf("d%d", i%650) // later duplicates replace
		text := synthSentence(r)
		ids, texts = append(ids, id), append(texts, text)
		a.Add(id, text)
	}
	b.Add("d3", "an earlier text that AddMany replaces")
	b.AddMany(ids, texts)
	if a.Len() != 650 || b.Len() != 650 || a.totalLen != b.totalLen {
		t.Fatalf("len %d %d total %d %d", a.Len(), b.Len(), a.totalLen, b.totalLen)
	}
	for range 30 {
		q := synthSentence(r)
		ha, na := a.SearchNorm(q, 20, nil)
		hb, nb := b.SearchNorm(q, 20, nil)
		if fmt.Sprint(ha, na) != fmt.Sprint(hb, nb) {
			t.Fatalf("search differs for %q\n%v\n%v", q, ha, hb)
		}
	}
}
