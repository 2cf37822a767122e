package memcore

import (
	"regexp"
	"strings"
	"testing"
)

// validAgentName accepts exactly what the regular expression it replaced
// (issue 24: compiling it allocated 2.5 MB at every process start)
// accepted.
func TestValidAgentNameMatchesTheOldPattern(t *testing.T) {
	old := regexp.MustCompile(`^[\p{L}\p{N}][\p{L}\p{N}_.-]{0,31}(?: [\p{L}\p{N}][\p{L}\p{N}_.-]{0,31})?$`)
	names := []string{
		"", "odek", "jarvis", "Odek", "odek2", "2odek", "my agent", "two words too", "odek ", " odek", "odek  bot",
		"o.d-e_k", ".odek", "-odek", "_odek", "odek bot.", "odek -bot", "Jürgen", "エージェント", "agent٣", "ⅻ", "a\tb",
		"a\nb", "odek\n", "a,b", "odek!", "\xff", "odek\xff", "é́", strings.Repeat("a", 32), strings.Repeat("a", 33),
		strings.Repeat("ü", 32), strings.Repeat("ü", 33), strings.Repeat("a", 32) + " " + strings.Repeat("b", 32),
		strings.Repeat("a", 32) + " " + strings.Repeat("b", 33), "a b c", "a\u00a0b", "a\u200bb",
	}
	for _, n := range names {
		if got, want := validAgentName(n), old.MatchString(n); got != want {
			t.Errorf("validAgentName(%q) = %v, the pattern says %v", n, got, want)
		}
	}
}
