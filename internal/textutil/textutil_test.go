package textutil

import (
	"hash/fnv"
	"testing"
)

func fnvOf(s string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(s))
	return h.Sum64()
}

// FuzzNormalHash: NormalHash is the hash of Normalize, for any input
// (invalid UTF-8, Unicode white space and case included).
func FuzzNormalHash(f *testing.F) {
	for _, s := range []string{"", "  ", "Hello  World", "\tÉCOLE\u00a0Été\n", "ǅungla İstanbul ΣΑΣ", "a\xffb", "\u2028x\u3000y ", "ﬁ ß ẞ"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := NormalHash(s), fnvOf(Normalize(s)); got != want {
			t.Fatalf("NormalHash(%q) = %x, want the hash of %q (%x)", s, got, Normalize(s), want)
		}
	})
}
