package memcore_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/odekmem/odekmem/memcore"
)

// TestFilteredSearchesInOnePass: searches with different filters in one
// pass (the hook's typed and project searches) each get exactly the atoms
// their own filter admits — a selective filter among many other atoms
// finds all of its few, and two filters never share an answer.
func TestFilteredSearchesInOnePass(t *testing.T) {
	ctx := context.Background()
	st, err := memcore.Open(ctx, t.TempDir(), memcore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close(ctx)
	var reqs []memcore.AddRequest
	for i := 0; i < 400; i++ {
		reqs = append(reqs, memcore.AddRequest{Text: fmt.Sprintf("The deploy pipeline note %d mentions the staging cluster and rollout %d", i, i*7),
			Type: memcore.TypeFact, Source: memcore.SourceUserSaid, Context: memcore.AtomContext{Project: fmt.Sprintf("/src/p%d", i%2)}})
	}
	for i := 0; i < 5; i++ {
		for _, p := range []string{"/src/p0", "/src/p1"} {
			reqs = append(reqs, memcore.AddRequest{Text: fmt.Sprintf("Convention %d for %s: every deploy pipeline change goes through the staging cluster first, step %d", i, p, i+11),
				Type: memcore.TypeConvention, Source: memcore.SourceUserSaid, Context: memcore.AtomContext{Project: p}})
		}
	}
	if _, _, err := st.AddBatch(ctx, reqs); err != nil {
		t.Fatal(err)
	}
	zero := 0.0
	q := "deploy pipeline staging cluster"
	opts := []memcore.SearchOptions{
		{K: 20, MinScore: &zero, Types: []memcore.Type{memcore.TypeConvention}, Project: "/src/p0"},
		{K: 20, MinScore: &zero, Types: []memcore.Type{memcore.TypeConvention}, Project: "/src/p1"},
		{K: 20, MinScore: &zero, Type: memcore.TypeConvention},
		{K: 20, MinScore: &zero, Project: "/src/p1"},
	}
	var qs []memcore.Query
	for _, o := range opts {
		qs = append(qs, memcore.Query{Text: q, Options: o})
	}
	res, err := memcore.SearchMany(st, ctx, qs)
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range []int{5, 5, 10, 20} {
		if len(res[i]) != want {
			t.Errorf("query %d (%+v): %d results, want %d", i, opts[i], len(res[i]), want)
		}
		for _, r := range res[i] {
			o := opts[i]
			if o.Project != "" && r.Atom.Context.Project != o.Project {
				t.Errorf("query %d: atom of project %q in a search of %q", i, r.Atom.Context.Project, o.Project)
			}
			if (o.Type != "" || len(o.Types) > 0) && r.Atom.Type != memcore.TypeConvention {
				t.Errorf("query %d: a %s in a search of conventions", i, r.Atom.Type)
			}
		}
	}
}
