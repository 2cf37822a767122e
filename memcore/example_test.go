package memcore_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/odekmem/odekmem/memcore"
)

// stExampleStore opens a throwaway store; the caller runs cleanup.
func stExampleStore() (*memcore.Store, func()) {
	home, err := os.MkdirTemp("", "odekmem-example-")
	if err != nil {
		panic(err)
	}
	s, err := memcore.Open(context.Background(), filepath.Join(home, "memory", "extended"), memcore.Options{})
	if err != nil {
		panic(err)
	}
	return s, func() { s.Close(context.Background()); os.RemoveAll(home) }
}

func ExampleOpen() {
	home, _ := os.MkdirTemp("", "odekmem-example-")
	defer os.RemoveAll(home)
	s, err := memcore.Open(context.Background(), filepath.Join(home, "memory", "extended"), memcore.Options{})
	if err != nil {
		fmt.Println("open:", err)
		return
	}
	defer s.Close(context.Background())
	stats, err := s.Stats(context.Background())
	if err != nil {
		fmt.Println("stats:", err)
		return
	}
	fmt.Println("atoms:", stats.Live, "problems:", len(s.Problems()))
	// Output: atoms: 0 problems: 0
}

func ExampleStore_Add() {
	s, done := stExampleStore()
	defer done()
	ctx := context.Background()
	r, _ := s.Add(ctx, memcore.AddRequest{Text: "I prefer tabs over spaces", Type: "preference", Source: memcore.SourceUserSaid})
	fmt.Println(r.Atom.Type, r.Atom.SourceClass, r.Quarantined)
	r, _ = s.Add(ctx, memcore.AddRequest{Text: "The docs say the default port is 8080", Source: memcore.SourceWeb})
	fmt.Println(r.Atom.SourceClass, r.Quarantined, r.Reason)
	// Output:
	// preference user_said false
	// web true tainted
}

func ExampleStore_List() {
	s, done := stExampleStore()
	defer done()
	ctx := context.Background()
	s.Add(ctx, memcore.AddRequest{Source: memcore.SourceUserApproved, Text: "We deploy on Fridays", Type: "convention"})
	s.Add(ctx, memcore.AddRequest{Source: memcore.SourceUserApproved, Text: "The staging host is pluto", Type: "fact"})
	atoms, err := s.List(ctx, memcore.Filter{Type: "convention"})
	if err != nil {
		fmt.Println("list:", err)
		return
	}
	for _, a := range atoms {
		fmt.Println(a.Type+":", a.Text)
	}
	// Output: convention: We deploy on Fridays
}

func ExampleStore_Promote() {
	s, done := stExampleStore()
	defer done()
	ctx := context.Background()
	r, _ := s.Add(ctx, memcore.AddRequest{Text: "The build cache lives in /var/cache/ci", Source: memcore.SourceToolOutput})
	counts := func() (int, int) {
		q, _ := s.Quarantined(ctx)
		stats, _ := s.Stats(ctx)
		return len(q), stats.Live
	}
	q, n := counts()
	fmt.Println("quarantined:", q, "live:", n)
	a, _, err := s.Promote(ctx, r.Atom.ID)
	if err != nil {
		fmt.Println("promote:", err)
		return
	}
	q, n = counts()
	fmt.Println(a.SourceClass, "quarantined:", q, "live:", n)
	// Output:
	// quarantined: 1 live: 0
	// user_approved quarantined: 0 live: 1
}
