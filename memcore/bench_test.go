package memcore

import (
	"context"
	"fmt"
	"math/rand"
	"testing"

	"github.com/odekmem/odekmem/internal/engine"
	"github.com/odekmem/odekmem/internal/testkit"
)

// BenchmarkFacade measures what memcore's own types cost over the engine's
// (the field-by-field conversion of every result): Search and BeforeTurn
// on the same 1k-atom store, through the engine and through memcore.
func BenchmarkFacade(b *testing.B) {
	home := testkit.SeedHome(b, "facade", 1000)
	st, err := Open(testkit.StoreDir(home), Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	ctx := context.Background()
	r := rand.New(rand.NewSource(7))
	qs := make([]string, 64)
	for i := range qs {
		qs[i] = testkit.Note(r, 60)
	}
	min := 0.0 // every query returns K atoms, so each call converts ten
	b.Run("search/engine", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			if res, _ := st.e.Search(ctx, qs[i%len(qs)], engine.SearchOptions{MinScore: &min}); len(res) != 10 {
				b.Fatal(len(res))
			}
		}
	})
	b.Run("search/memcore", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			if res, _ := st.Search(ctx, qs[i%len(qs)], SearchOptions{MinScore: &min}); len(res) != 10 {
				b.Fatal(len(res))
			}
		}
	})
	eh, h := engine.NewHook(st.e, engine.HookOptions{}), NewHook(st)
	defer eh.Close(ctx)
	defer h.Close(ctx)
	b.Run("turn/engine", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			eh.BeforeTurn(ctx, engine.Turn{Message: qs[i%len(qs)], SessionID: fmt.Sprint(i % 8)})
		}
	})
	b.Run("turn/memcore", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			h.BeforeTurn(ctx, Turn{Message: qs[i%len(qs)], SessionID: fmt.Sprint(i % 8)})
		}
	})
}
