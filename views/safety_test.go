package views

import (
	"strings"
	"testing"
	"time"

	"github.com/odekmem/odekmem/memcore"
)

const hostile = "red \x1b[31mALERT\x1b[0m csi \x9b2J zero\u200bwidth bell\x07 osc \x1b]0;title\x07 end"

func assertSafe(t *testing.T, where, out string) {
	t.Helper()
	for _, bad := range []string{"\x1b", "\u009b", "\x9b", "\x07", "\u200b"} {
		if strings.Contains(out, bad) {
			t.Errorf("%s: output contains %q:\n%q", where, bad, out)
		}
	}
}

// TestControlSequencesNeverReachTheTerminal renders hostile store text in
// every place store text appears.
func TestControlSequencesNeverReachTheTerminal(t *testing.T) {
	d := testDeps()
	at := memcore.Atom{ID: strings.Repeat("a", 32), SourceClass: memcore.SourceUserSaid, Type: "fact\x1b[1m",
		CreatedAt: now.Add(-time.Hour), Text: hostile,
		Context: memcore.AtomContext{SessionID: "s\x1b[2J", Project: "p\x9bX"}}

	a := NewAtoms(d)
	a.SetSize(120, 20)
	a.Update(AtomsLoadedMsg{Rows: BuildRows(d, []memcore.Atom{at})})
	out := a.View()
	assertSafe(t, "atoms list", out)
	if !strings.Contains(out, "⟨U+200B⟩") {
		t.Errorf("zero-width space not made visible:\n%s", out)
	}

	md := AtomMarkdown(at, nil, []related{{Kind: "task\x1b[0m", Atom: at}}, now, 30)
	assertSafe(t, "detail markdown", md)
	rendered, err := RenderMarkdown(d, md, 100)
	if err != nil {
		t.Fatal(err)
	}
	// notty glamour emits no styling, so any ESC would be from the data.
	assertSafe(t, "detail rendered", rendered)

	q := NewQuarantine(d)
	q.SetSize(120, 30)
	qa := memcore.QuarantinedAtom{Atom: at, QuarantinedAt: now, Reason: "scan_rejected: ansi: \x1b[31m"}
	q.Update(QuarantineLoadedMsg{Items: BuildQItems(d, []memcore.QuarantinedAtom{qa})})
	out = q.View()
	assertSafe(t, "quarantine", out)
	if !strings.Contains(out, "⟨U+200B⟩") {
		t.Errorf("quarantine: zero-width space not visible:\n%s", out)
	}

	p := NewPending(d)
	p.SetSize(120, 20)
	p.Update(PendingLoadedMsg{Items: []PItem{{P: memcore.PendingReview{ID: "x", Field: "style.tone\x1b[0m", Value: hostile, Evidence: hostile}, Current: hostile, Known: true}}})
	assertSafe(t, "pending", p.View())

	a.Update(SearchResultMsg{Query: hostile, Results: []memcore.Scored{{Atom: at, Composite: 0.5}}})
	assertSafe(t, "search", a.View())

	r := NewRecall(d)
	r.SetSize(120, 40)
	r.Update(RecallResultMsg{Message: hostile, TC: memcore.TurnContext{Message: hostile, Blocks: []string{hostile}, StyleBlock: hostile,
		Intents: []string{hostile}, Memory: memcore.Block{Text: hostile, Atoms: []memcore.Scored{{Atom: at}}}}})
	assertSafe(t, "recall", r.View())

	g := NewAssoc(d)
	g.SetSize(120, 30)
	g.Update(CentreMsg{ID: at.ID})
	g.Update(AssocLoadedMsg{ID: at.ID, Depth: 1, Graph: Graph{Centre: at, Edges: []GEdge{{Kind: "semantic", Atom: at}}}})
	assertSafe(t, "associations", g.View())

	b := NewBudget(d)
	b.SetSize(120, 60)
	b.Update(BudgetLoadedMsg{Stats: memcore.Stats{CapBytes: 1 << 20, Components: map[string]int64{"atoms\x1b": 10},
		ByType: map[memcore.Type]int{memcore.Type(hostile): 1}}, Evict: []memcore.Scored{{Atom: at}}})
	assertSafe(t, "budget", b.View())

	u := NewUserModel(d)
	u.SetSize(120, 40)
	var um memcore.UserModel
	um.Style.Tone = hostile
	u.Update(UserModelLoadedMsg{Model: um})
	assertSafe(t, "user model", u.View())
}

// The detail view shows a promoted atom's origin, made safe like every
// other store text.
func TestDetailShowsThePromotedOrigin(t *testing.T) {
	at := memcore.Atom{ID: strings.Repeat("b", 32), SourceClass: memcore.SourceUserApproved, Type: "fact", CreatedAt: now.Add(-time.Hour), Text: "the CI runner has 8 cores",
		Origin: &memcore.Origin{SourceClass: memcore.SourceWeb, Reason: "scan_rejected: x: \x1b]52;c;Y3VybA==\x07", QuarantinedAt: now.Add(-2 * time.Hour), PromotedAt: now,
			Findings: []memcore.OriginFinding{{Kind: "injection", Rule: "ignore-previous", Severity: "block", Reason: "asks to ignore \x1b[2J instructions"}}, StillBlocked: true}}
	md := AtomMarkdown(at, nil, nil, now, 30)
	assertSafe(t, "detail origin", md)
	for _, want := range []string{"promoted from: web", "finding at promote: block injection", "never injected into a prompt"} {
		if !strings.Contains(md, want) {
			t.Fatalf("detail lacks %q:\n%s", want, md)
		}
	}
}
