package views

import (
	"fmt"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/odekmem/odekmem/internal/vocab"
	"github.com/odekmem/odekmem/memcore"
)

func manyAtoms(n int) []memcore.Atom {
	words := strings.Fields("payouts report merchant timezone migration checkout flag deploy helm cronjob postgres replica cookie session retry idempotent webhook invoice ledger")
	out := make([]memcore.Atom, n)
	for i := range out {
		var b strings.Builder
		for j := 0; b.Len() < 200; j++ {
			b.WriteString(words[(i*7+j*13)%len(words)])
			b.WriteByte(' ')
		}
		out[i] = memcore.Atom{ID: fmt.Sprintf("%032x", i), SourceClass: memcore.SourceUserSaid, Type: memcore.Type(vocab.AtomTypes[i%9]),
			CreatedAt: now.Add(-time.Duration(i) * time.Minute), Confidence: 0.9, Text: b.String(),
			Context: memcore.AtomContext{Project: fmt.Sprintf("~/src/p%d", i%5), SessionID: fmt.Sprintf("s-%d", i%50)}}
	}
	return out
}

// BenchmarkNavigate100k is one down-arrow Update plus View with 100,000
// atoms in the pane (target ≤ 16 ms).
func BenchmarkNavigate100k(b *testing.B) {
	d := testDeps()
	a := NewAtoms(d)
	a.SetSize(120, 36)
	a.Update(AtomsLoadedMsg{Rows: BuildRows(d, manyAtoms(100_000))})
	downKey := tea.KeyMsg{Type: tea.KeyDown}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		a.Update(downKey)
		_ = a.View()
	}
}

// BenchmarkFilterKeystroke100k is one filter keystroke (re-filtering all
// 100,000 atoms) plus View.
func BenchmarkFilterKeystroke100k(b *testing.B) {
	d := testDeps()
	a := NewAtoms(d)
	a.SetSize(120, 36)
	a.Update(AtomsLoadedMsg{Rows: BuildRows(d, manyAtoms(100_000))})
	a.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("/")})
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		r := "x"
		if i%2 == 0 {
			r = "m"
		}
		a.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(r)})
		a.Update(tea.KeyMsg{Type: tea.KeyBackspace})
		_ = a.View()
	}
}
