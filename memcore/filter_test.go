package memcore_test

import (
	"context"
	"testing"

	"github.com/odekmem/odekmem/memcore"
)

// TestListFilterProjectAsTheHookDoes: List's project filter compares
// projects as the Hook does (base name, either separator, any case), so a
// caller passing the name the Hook was given finds atoms odek stored with a
// working directory.
func TestListFilterProjectAsTheHookDoes(t *testing.T) {
	s := stOpen(t, stDir(t), memcore.Options{})
	for _, c := range []struct{ text, project string }{
		{"ledger uses postgres 16", "/home/ana/src/payments-api"},
		{"ledger tests run with -race", `C:\src\Payments-API\`},
		{"the blog is built with hugo", "/home/ana/src/blog"},
		{"no project on this one", ""},
	} {
		stAdd(t, s, memcore.AddRequest{Text: c.text, Source: memcore.SourceUserApproved, Context: memcore.AtomContext{Project: c.project}})
	}
	for _, tc := range []struct {
		name, project string
		want          int
	}{
		{"name", "payments-api", 2},
		{"other case and trailing slash", "Payments-API/", 2},
		{"working directory", "/work/payments-api", 2},
		{"another project", "blog", 1},
		{"unknown", "nothing-here", 0},
		{"empty matches all", "", 4},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := s.List(context.Background(), memcore.Filter{Project: tc.project})
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != tc.want {
				t.Fatalf("List(Project %q): %d atoms, want %d", tc.project, len(got), tc.want)
			}
		})
	}
}
