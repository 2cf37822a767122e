package memcore_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/odekmem/odekmem/memcore"
)

// TestAddBatchKeepsRequestOrder: AddBatch takes each atom as soon as it
// is prepared while the rest are still being prepared; what a caller sees
// must not depend on that. Results and errors stay at their request's
// index, a text repeated later in the same batch refreshes the first
// (never two live copies), a tainted one goes to quarantine, and the
// store holds exactly what the results say, in request order.
func TestAddBatchKeepsRequestOrder(t *testing.T) {
	ctx := context.Background()
	s, err := memcore.Open(ctx, t.TempDir(), memcore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close(ctx)
	const n = 300
	reqs := make([]memcore.AddRequest, n)
	for i := range reqs {
		reqs[i] = memcore.AddRequest{Text: fmt.Sprintf("Batch note %d about the %s service and its deploy window %d", i, []string{"billing", "search", "auth"}[i%3], i*7), Source: memcore.SourceUserSaid}
	}
	reqs[17].Text = ""                  // fails preparation
	reqs[40].Source = memcore.SourceWeb // tainted: quarantine
	reqs[250].Text = reqs[120].Text     // a repeat: refreshes 120's atom
	reqs[99].Confidence = 2             // invalid
	res, errs, err := s.AddBatch(ctx, reqs)
	if err != nil {
		t.Fatal(err)
	}
	if len(res) != n || len(errs) != n {
		t.Fatalf("%d results, %d errors for %d requests", len(res), len(errs), n)
	}
	for i := range reqs {
		switch i {
		case 17:
			if !errors.Is(errs[i], memcore.ErrInvalidArgument) {
				t.Errorf("request 17 (empty): error %v", errs[i])
			}
			continue
		case 99:
			if !errors.Is(errs[i], memcore.ErrInvalidArgument) {
				t.Errorf("request 99 (confidence 2): error %v", errs[i])
			}
			continue
		}
		if errs[i] != nil {
			t.Fatalf("request %d: %v", i, errs[i])
		}
		if res[i].Atom.Text != reqs[i].Text {
			t.Fatalf("result %d holds %q, its request %q", i, res[i].Atom.Text, reqs[i].Text)
		}
	}
	if !res[40].Quarantined {
		t.Errorf("the web text was not quarantined: %+v", res[40])
	}
	if !res[250].Refreshed || res[250].Atom.ID != res[120].Atom.ID {
		t.Errorf("the repeat of 120 did not refresh its atom: %+v (120 is %s)", res[250], res[120].Atom.ID)
	}
	atoms, err := s.List(ctx, memcore.Filter{})
	if err != nil {
		t.Fatal(err)
	}
	if want := n - 4; len(atoms) != want { // empty, invalid, tainted, repeat
		t.Fatalf("%d live atoms, want %d", len(atoms), want)
	}
	live := map[string]bool{}
	for _, a := range atoms {
		live[a.ID] = true
	}
	for i := range reqs {
		if i == 17 || i == 99 || i == 40 || i == 250 {
			continue
		}
		if !live[res[i].Atom.ID] {
			t.Errorf("request %d's atom %s is not live", i, res[i].Atom.ID)
		}
	}
}

// TestAddBatchWithAnEndedContext: a batch whose context has ended returns
// (no preparing worker is left behind, none waited on forever) and every
// request either has its error or a live atom.
func TestAddBatchWithAnEndedContext(t *testing.T) {
	s, err := memcore.Open(context.Background(), t.TempDir(), memcore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close(context.Background())
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	reqs := make([]memcore.AddRequest, 100) // a size AddBatch pipelines
	for i := range reqs {
		reqs[i] = memcore.AddRequest{Text: fmt.Sprintf("note %d on the ended context", i), Source: memcore.SourceUserSaid}
	}
	res, errs, err := s.AddBatch(ctx, reqs)
	atoms, lerr := s.List(context.Background(), memcore.Filter{})
	if lerr != nil {
		t.Fatal(lerr)
	}
	live := map[string]bool{}
	for _, a := range atoms {
		live[a.ID] = true
	}
	for i := range reqs {
		if err == nil && errs[i] == nil && !live[res[i].Atom.ID] {
			t.Errorf("request %d reported added, but its atom is not live", i)
		}
	}
	if err != nil && len(atoms) != 0 {
		t.Errorf("the batch failed (%v) yet %d atoms are live", err, len(atoms))
	}
}
