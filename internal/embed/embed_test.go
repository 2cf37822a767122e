package embed

import (
	"context"
	"fmt"
	"math"
	"strings"
	"testing"
)

func norm(v []float32) float64 {
	var s float64
	for _, x := range v {
		s += float64(x) * float64(x)
	}
	return math.Sqrt(s)
}

func cos(a, b []float32) float64 {
	var s float64
	for i := range a {
		s += float64(a[i]) * float64(b[i])
	}
	return s
}

func TestTokensAndTerms(t *testing.T) {
	got := Tokens("Hey Mel! Caroline's LGBTQ-group, naïve 2023 don’t")
	want := []string{"hey", "mel", "carolines", "lgbtq", "group", "naïve", "2023", "dont"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("Tokens = %q, want %q", got, want)
	}
	if got := Terms("I went to the painting classes"); fmt.Sprint(got) != "[went paint class]" {
		t.Fatalf("Terms = %q", got)
	}
	for in, want := range map[string]string{"running": "run", "painted": "paint", "stories": "story", "cats": "cats", "glass": "glass", "quickly": "quick"} {
		if got := Stem(in); got != want {
			t.Errorf("Stem(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestHashDeterministicGolden(t *testing.T) {
	h := NewHash(0)
	if h.Fingerprint() != "hash/1/768" || h.Dims() != 768 || !h.Sparse() {
		t.Fatalf("fingerprint %q dims %d", h.Fingerprint(), h.Dims())
	}
	v := h.EmbedText("Caroline went to the LGBTQ support group yesterday.")
	// Golden values pin the hash, tokenizer and weighting: a change here
	// must bump HashVersion.
	var nz []string
	for i, x := range v {
		if x != 0 && len(nz) < 4 {
			nz = append(nz, fmt.Sprintf("%d:%.6f", i, x))
		}
	}
	const golden = "[30:-0.096052 55:-0.096052 66:0.096052 69:0.096052]"
	if fmt.Sprint(nz) != golden {
		t.Fatalf("first nonzero entries %v, want %s", nz, golden)
	}
	t.Logf("first nonzero entries: %v", nz)
	w := NewHash(768).EmbedText("Caroline went to the LGBTQ support group yesterday.")
	for i := range v {
		if v[i] != w[i] {
			t.Fatalf("not deterministic at %d", i)
		}
	}
	if n := norm(v); math.Abs(n-1) > 1e-5 {
		t.Fatalf("norm %v", n)
	}
	if NewHash(100).Dims() != 768 {
		t.Fatal("dims below 768 must be raised")
	}
	if NewHash(1024).Fingerprint() != "hash/1/1024" {
		t.Fatal(NewHash(1024).Fingerprint())
	}
}

func TestHashIndependentAndSimilar(t *testing.T) {
	h := NewHash(0)
	ctx := context.Background()
	a, _ := h.Embed(ctx, []string{"I love painting sunsets by the lake"})
	b, _ := h.Embed(ctx, []string{"unrelated text about kernels", "I love painting sunsets by the lake", "more"})
	for i := range a[0] {
		if a[0][i] != b[1][i] {
			t.Fatal("a document's vector depends on the other documents")
		}
	}
	related := h.EmbedText("She painted a sunset at the lake last week")
	unrelated := h.EmbedText("The compiler rejects generic type aliases")
	if cr, cu := cos(a[0], related), cos(a[0], unrelated); cr <= cu+0.1 {
		t.Fatalf("related %v vs unrelated %v", cr, cu)
	}
	empty := h.EmbedText("the and of")
	if norm(empty) != 0 {
		t.Fatal("stop-word-only text should give the zero vector")
	}
	if h.Calibrate(0) != 0 || h.Calibrate(-1) != 0 {
		t.Fatal("calibrate of non-positive cosine must be 0")
	}
	if g := h.Calibrate(0.1712); math.Abs(float64(g)-DefaultMinScore) > 0.005 {
		t.Fatalf("calibrate(0.171) = %v, want ≈ 0.55", g)
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := h.Embed(cctx, []string{"x"}); err == nil {
		t.Fatal("cancelled context must fail")
	}
}

func BenchmarkHashEmbed300(b *testing.B) {
	h := NewHash(0)
	text := strings.Repeat("Melanie painted a lake sunrise last year and signed up for pottery. ", 5)[:300]
	b.ReportAllocs()
	for b.Loop() {
		h.EmbedText(text)
	}
}
