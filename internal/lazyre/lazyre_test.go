package lazyre

import (
	"regexp"
	"testing"
)

func TestCompiledOnFirstUseOnly(t *testing.T) {
	l := New(`(?i)\bre(try|do)\b`)
	if l.re != nil {
		t.Fatal("compiled at New")
	}
	if l.String() != `(?i)\bre(try|do)\b` || l.re != nil {
		t.Fatal("String compiled the pattern")
	}
	want := regexp.MustCompile(l.String())
	for _, s := range []string{"Retry it", "redo", "rely", ""} {
		if l.MatchString(s) != want.MatchString(s) {
			t.Errorf("MatchString(%q) differs", s)
		}
		if got, w := l.FindStringSubmatch(s), want.FindStringSubmatch(s); len(got) != len(w) {
			t.Errorf("FindStringSubmatch(%q) = %q, want %q", s, got, w)
		}
	}
	if l.Regexp() != l.Regexp() {
		t.Fatal("compiled twice")
	}
}

func TestInvalidPatternPanicsAtFirstUse(t *testing.T) {
	l := New(`(`)
	defer func() {
		if recover() == nil {
			t.Fatal("no panic")
		}
	}()
	l.MatchString("x")
}
