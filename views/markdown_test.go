package views

import (
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/glamour"

	"github.com/odekmem/odekmem/memcore"
)

// TestRenderMarkdownMatchesGlamour: the detail view's renderer gives,
// byte for byte, what glamour's notty style gave for the documents
// AtomMarkdown writes (glamour is a test dependency only: the binary does
// not link it), and the dark style keeps the same text and layout.
func TestRenderMarkdownMatchesGlamour(t *testing.T) {
	long := strings.Repeat("the deploy of the payments service waits for the canary ", 6)
	atoms := []memcore.Atom{
		{ID: strings.Repeat("a", 32), SourceClass: memcore.SourceUserSaid, Type: "fact", CreatedAt: now.Add(-time.Hour), Text: "the CI runner has 8 cores"},
		{ID: strings.Repeat("b", 32), SourceClass: "user_approved", Type: "decision", CreatedAt: now.Add(-72 * time.Hour), Pin: true, Confidence: 0.7,
			Text:    long + "— see https://example.com/a/very/long/path/that/does/not/fit/on/one/line/at/all?x=1 and *stars* _under_ [link](x) #tag 1. item - dash",
			Context: memcore.AtomContext{SessionID: "s-2026-11-27-a", Turn: 20, Project: "~/src/payments-api"},
			Origin: &memcore.Origin{SourceClass: "web", Reason: "scan_rejected: injection: ignore previous instructions", QuarantinedAt: now, PromotedAt: now,
				Findings: []memcore.OriginFinding{{Severity: "block", Kind: "injection", Rule: "ignore_previous", Reason: "asks to ignore earlier instructions"}}, Redacted: true}},
		{ID: strings.Repeat("c", 32), SourceClass: "tool_output", Type: "observation", CreatedAt: now, Text: "漢字のテキストと English mixed, with wide characters 全角 everywhere 漢字漢字漢字漢字漢字漢字漢字漢字漢字漢字漢字漢字"},
	}
	// And texts of random words, punctuation and wide characters.
	r := rand.New(rand.NewPCG(24, 1))
	pieces := strings.Fields("the a deploy payments-api v1.2.3 https://x.example/a/b?c=d #tag *bold* _it_ [x](y) (paren) a,b;c+d|e 漢字 テキスト — … don't 1. - + 0.999 half-life supercalifragilisticexpialidocious")
	for range 60 {
		var b strings.Builder
		for range 3 + r.IntN(40) {
			b.WriteString(pieces[r.IntN(len(pieces))])
			b.WriteByte(' ')
		}
		atoms = append(atoms, memcore.Atom{ID: strings.Repeat("d", 32), SourceClass: memcore.SourceUserSaid, Type: "fact", CreatedAt: now, Text: strings.TrimSpace(b.String()),
			Context: memcore.AtomContext{Project: pieces[r.IntN(len(pieces))]}})
	}
	q := &memcore.QuarantinedAtom{Atom: atoms[2], QuarantinedAt: now, Reason: "tainted"}
	for i, at := range atoms {
		var rel []related
		if i > 0 {
			rel = []related{{Kind: "task", Atom: atoms[0]}, {Kind: "semantic", Atom: atoms[1]}}
		}
		var qa *memcore.QuarantinedAtom
		if i == 2 {
			qa = q
		}
		md := AtomMarkdown(at, qa, rel, now, 30)
		for _, w := range []int{16, 36, 76, 116} {
			r, err := glamour.NewTermRenderer(glamour.WithStandardStyle("notty"), glamour.WithWordWrap(w))
			if err != nil {
				t.Fatal(err)
			}
			want, err := r.Render(md)
			if err != nil {
				t.Fatal(err)
			}
			if got := renderMarkdown(md, "notty", w); got != want {
				t.Fatalf("atom %d, width %d:\ngot\n%s\nwant\n%s", i, w, got, want)
			}
		}
	}
}
