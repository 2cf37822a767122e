package vocab

import (
	"math/rand"
	"strings"
	"testing"
)

// validIDRef is ValidID as it was written before the byte table: the
// definition the table must keep.
func validIDRef(id string) bool {
	if id == "" || len(id) > 128 {
		return false
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		switch {
		case c >= '0' && c <= '9', c >= 'a' && c <= 'z':
		case (c == '-' || c == '_') && i > 0:
		default:
			return false
		}
	}
	return true
}

func TestValidIDMatchesItsDefinition(t *testing.T) {
	var cases []string
	for c := 0; c < 256; c++ {
		b := string([]byte{byte(c)})
		cases = append(cases, b, "a"+b, b+"a", "0"+b+"z", strings.Repeat("a", 127)+b, strings.Repeat("a", 128)+b)
	}
	cases = append(cases, "", NewID(), "550e8400-e29b-41d4-a716-446655440000", "my_slug-1", "-x", "_x", "..", "a/b", "A", "ä",
		strings.Repeat("z", 128), strings.Repeat("z", 129))
	r := rand.New(rand.NewSource(1))
	alpha := "az09-_.A/\x00\xff"
	for range 20000 {
		b := make([]byte, r.Intn(6))
		for i := range b {
			b[i] = alpha[r.Intn(len(alpha))]
		}
		cases = append(cases, string(b))
	}
	for _, id := range cases {
		if got, want := ValidID(id), validIDRef(id); got != want {
			t.Errorf("ValidID(%q) = %v, want %v", id, got, want)
		}
	}
}
