package views

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/odekmem/odekmem/memcore"
	"github.com/odekmem/odekmem/theme"
)

var now = time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)

func testDeps() Deps {
	d := NewDeps(context.Background(), nil, theme.NewStyles(theme.Default()), "notty")
	d.Now = func() time.Time { return now }
	return d
}

func runes(s string) tea.KeyMsg { return tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(s)} }

var (
	down  = tea.KeyMsg{Type: tea.KeyDown}
	up    = tea.KeyMsg{Type: tea.KeyUp}
	enter = tea.KeyMsg{Type: tea.KeyEnter}
	esc   = tea.KeyMsg{Type: tea.KeyEsc}
	space = tea.KeyMsg{Type: tea.KeySpace, Runes: []rune{' '}}
)

func sampleAtoms() []memcore.Atom {
	types := []memcore.Type{"decision", "fact", "preference", "goal"}
	projects := []string{"~/src/webshop", "~/src/payments-api"}
	var out []memcore.Atom
	for i := 0; i < 40; i++ {
		out = append(out, memcore.Atom{
			ID:          fmt.Sprintf("%032x", i+1),
			SourceClass: memcore.SourceUserSaid,
			Type:        types[i%len(types)],
			CreatedAt:   now.Add(-time.Duration(i) * 24 * time.Hour),
			Context:     memcore.AtomContext{SessionID: fmt.Sprintf("s-%d", i%3), Project: projects[i%2], Turn: i},
			Confidence:  0.9,
			Text:        fmt.Sprintf("atom number %d about %s", i, types[i%len(types)]),
			Pin:         i == 3,
		})
	}
	return out
}

func newAtomsPane(t testing.TB, atoms []memcore.Atom) *Atoms {
	d := testDeps()
	a := NewAtoms(d)
	a.SetSize(100, 20)
	a.Update(AtomsLoadedMsg{Rows: BuildRows(d, atoms)})
	return a
}

func TestAtomsNavigate(t *testing.T) {
	a := newAtomsPane(t, sampleAtoms())
	tests := []struct {
		name string
		keys []tea.KeyMsg
		want int
	}{
		{"down twice", []tea.KeyMsg{down, down}, 2},
		{"up at top stays", []tea.KeyMsg{up}, 0},
		{"end", []tea.KeyMsg{runes("G")}, 39},
		{"end then home", []tea.KeyMsg{runes("G"), runes("g")}, 0},
		{"page down", []tea.KeyMsg{{Type: tea.KeyPgDown}}, 17},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a.cur.Set(0)
			for _, k := range tt.keys {
				a.Update(k)
			}
			if a.cur.Pos != tt.want {
				t.Fatalf("cursor %d, want %d", a.cur.Pos, tt.want)
			}
			if !strings.Contains(a.View(), "> ") {
				t.Fatal("no selection marker")
			}
		})
	}
}

func TestAtomsWheel(t *testing.T) {
	a := newAtomsPane(t, sampleAtoms())
	a.Update(tea.MouseMsg{Action: tea.MouseActionPress, Button: tea.MouseButtonWheelDown})
	if a.cur.Pos != 3 {
		t.Fatalf("wheel moved to %d, want 3", a.cur.Pos)
	}
}

func TestAtomsFilterAsYouType(t *testing.T) {
	a := newAtomsPane(t, sampleAtoms())
	a.Update(runes("/"))
	if !a.InputActive() {
		t.Fatal("filter input not active")
	}
	for _, r := range "number 1" {
		if r == ' ' {
			a.Update(space)
		} else {
			a.Update(runes(string(r)))
		}
	}
	// Words are ANDed: "number" and "1" match 1, 10–19, 21 and 31.
	if got := a.Title(); got != "Atoms 13/40" {
		t.Fatalf("title %q, want Atoms 13/40", got)
	}
	a.Update(enter)
	if a.InputActive() {
		t.Fatal("input still active after enter")
	}
	a.Update(esc) // clears the filter
	if got := a.Title(); got != "Atoms 40" {
		t.Fatalf("title after esc %q", got)
	}
}

func TestAtomsFilterTokensAndCycle(t *testing.T) {
	tests := []struct {
		name   string
		filter string
		want   int
	}{
		{"type", "type:decision", 10},
		{"project", "project:webshop", 20},
		{"type and project", "type:decision project:webshop", 10},
		{"session", "session:s-1", 13},
		{"source", "source:user_said", 40},
		{"text and type", "type:fact number", 10},
		{"nothing", "type:goal project:webshop", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := newAtomsPane(t, sampleAtoms())
			a.filter = tt.filter
			a.apply()
			if len(a.view) != tt.want {
				t.Fatalf("%q: %d atoms, want %d", tt.filter, len(a.view), tt.want)
			}
		})
	}
	a := newAtomsPane(t, sampleAtoms())
	a.Update(runes("t"))
	if a.filter != "type:decision" {
		t.Fatalf("t → %q", a.filter)
	}
	a.Update(runes("t"))
	if a.filter != "type:fact" {
		t.Fatalf("t t → %q", a.filter)
	}
	a.Update(runes("p"))
	if !strings.Contains(a.filter, "project:~/src/payments-api") {
		t.Fatalf("p → %q", a.filter)
	}
	for i := 0; i < 3; i++ { // goal, preference, then all types again
		a.Update(runes("t"))
	}
	if strings.Contains(a.filter, "type:") {
		t.Fatalf("cycling past the last type should clear it: %q", a.filter)
	}
}

func TestAtomsKeepsSelectionOnReload(t *testing.T) {
	atoms := sampleAtoms()
	a := newAtomsPane(t, atoms)
	a.Update(down)
	a.Update(down)
	id := a.SelectedID()
	fresh := append([]memcore.Atom{{ID: strings.Repeat("f", 32), Type: "fact", SourceClass: memcore.SourceUserSaid, Text: "new", CreatedAt: now}}, atoms...)
	a.Update(AtomsLoadedMsg{Rows: BuildRows(testDeps(), fresh)})
	if a.SelectedID() != id {
		t.Fatalf("selection %s, want %s", a.SelectedID(), id)
	}
}

func TestAtomsForgetAsksFirst(t *testing.T) {
	a := newAtomsPane(t, sampleAtoms())
	cmd := a.Update(runes("d"))
	if cmd == nil {
		t.Fatal("d returned no command")
	}
	msg, ok := cmd().(ConfirmMsg)
	if !ok {
		t.Fatalf("d did not ask y/N: %T", cmd())
	}
	if !strings.Contains(msg.Question, "Forget") {
		t.Fatalf("question %q", msg.Question)
	}
}

func TestAtomsResize(t *testing.T) {
	a := newAtomsPane(t, sampleAtoms())
	for _, sz := range [][2]int{{80, 20}, {120, 36}, {40, 8}} {
		a.SetSize(sz[0], sz[1])
		v := a.View()
		lines := strings.Split(v, "\n")
		if len(lines) != sz[1] {
			t.Errorf("%v: %d lines", sz, len(lines))
		}
		for _, l := range lines {
			if w := len([]rune(l)); w > sz[0] {
				t.Errorf("%v: line too wide (%d): %q", sz, w, l)
			}
		}
	}
}

func TestQuarantineSelect(t *testing.T) {
	d := testDeps()
	q := NewQuarantine(d)
	q.SetSize(100, 20)
	var qs []memcore.QuarantinedAtom
	for _, at := range sampleAtoms()[:5] {
		at.SourceClass = memcore.SourceWeb
		qs = append(qs, memcore.QuarantinedAtom{Atom: at, QuarantinedAt: now.Add(-24 * time.Hour), Reason: "tainted"})
	}
	q.Update(QuarantineLoadedMsg{Items: BuildQItems(d, qs)})
	q.Update(space) // marks row 0 and moves down
	q.Update(space)
	if len(q.marked) != 2 || q.cur.Pos != 2 {
		t.Fatalf("marked %d, cursor %d", len(q.marked), q.cur.Pos)
	}
	if got := q.keys.Promote.Help().Desc; got != "promote 2" {
		t.Fatalf("promote help %q", got)
	}
	cmd := q.Update(runes("d"))
	msg, ok := cmd().(ConfirmMsg)
	if !ok || !strings.Contains(msg.Question, "Forget 2") {
		t.Fatalf("bulk forget question: %#v", msg)
	}
	q.Update(runes("A"))
	if len(q.marked) != 5 {
		t.Fatalf("A marked %d", len(q.marked))
	}
	q.Update(runes("A"))
	if len(q.marked) != 0 {
		t.Fatalf("A A left %d marked", len(q.marked))
	}
	if !strings.Contains(q.View(), "6d left") {
		t.Fatalf("expiry not shown:\n%s", q.View())
	}
}

func TestPendingKeysDisabledWhenEmpty(t *testing.T) {
	p := NewPending(testDeps())
	p.Update(PendingLoadedMsg{})
	if p.keys.Confirm.Enabled() || p.keys.Reject.Enabled() {
		t.Fatal("confirm/reject enabled on an empty queue")
	}
	p.Update(PendingLoadedMsg{Items: []PItem{{P: memcore.PendingReview{ID: "a", Field: "style.humor", Value: "dry"}, Known: true}}})
	if !p.keys.Confirm.Enabled() {
		t.Fatal("confirm disabled with an entry")
	}
	cmd := p.Update(runes("n"))
	if _, ok := cmd().(ConfirmMsg); !ok {
		t.Fatal("reject did not ask y/N")
	}
}

func TestInputIgnoresControls(t *testing.T) {
	var in Input
	in.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("a\x1b[31mb\u009bc"), Paste: true})
	if strings.ContainsRune(in.Value(), '\x1b') || strings.ContainsRune(in.Value(), '\u009b') {
		t.Fatalf("control characters inserted: %q", in.Value())
	}
	in.Update(tea.KeyMsg{Type: tea.KeyBackspace})
	in.Update(tea.KeyMsg{Type: tea.KeyLeft})
	in.Update(runes("X"))
	if in.Value() != "a[31mXb" {
		t.Fatalf("value %q", in.Value())
	}
}

// TestHelpDisabledHidden checks help never lists a disabled binding.
func TestHelpDisabledHidden(t *testing.T) {
	a := newAtomsPane(t, nil)
	for _, col := range a.FullHelp() {
		for _, b := range col {
			if b.Help().Key == "space/P" && b.Enabled() {
				t.Fatal("pin enabled with no atoms")
			}
		}
	}
}

func TestAssocRecentreAndBack(t *testing.T) {
	atoms := sampleAtoms()
	g := NewAssoc(testDeps())
	g.SetSize(100, 30)
	if cmd := g.Follow(atoms[0].ID); cmd == nil {
		t.Fatal("follow did not load")
	}
	g.Update(AssocLoadedMsg{ID: atoms[0].ID, Depth: 1, Graph: Graph{Centre: atoms[0], Edges: []GEdge{
		{Kind: "temporal", Atom: atoms[1]}, {Kind: "semantic", Atom: atoms[2]}}}})
	if g.keys.Back.Enabled() {
		t.Fatal("back enabled with no history")
	}
	v := g.View()
	for _, want := range []string{"temporal", "semantic", "├─", "└─", atoms[0].Text} {
		if !strings.Contains(v, want) {
			t.Fatalf("view lacks %q:\n%s", want, v)
		}
	}
	g.Update(down)
	if g.SelectedID() != atoms[2].ID {
		t.Fatalf("selected %s", g.SelectedID())
	}
	g.Update(enter)
	if g.centre != atoms[2].ID || len(g.history) != 1 || !g.keys.Back.Enabled() {
		t.Fatalf("recentre: centre %s history %v", g.centre, g.history)
	}
	g.Update(tea.KeyMsg{Type: tea.KeyLeft})
	if g.centre != atoms[0].ID || len(g.history) != 0 {
		t.Fatalf("back: centre %s", g.centre)
	}
	g.Update(runes("+"))
	if g.depth != 2 || !g.keys.Shallow.Enabled() || g.keys.Deeper.Enabled() {
		t.Fatal("depth toggle")
	}
	// A stale result for the old depth is ignored.
	g.Update(AssocLoadedMsg{ID: atoms[0].ID, Depth: 1})
	if g.loaded {
		t.Fatal("took a result for the wrong depth")
	}
}

func TestBudgetView(t *testing.T) {
	b := NewBudget(testDeps())
	b.SetSize(100, 40)
	b.Update(BudgetLoadedMsg{Stats: memcore.Stats{CapBytes: 100 << 20, TotalBytes: 50 << 20,
		Components: map[string]int64{"atoms": 10 << 20, "vectors": 40 << 20}, ByType: map[memcore.Type]int{"fact": 3}},
		Running: true, Done: 5, Total: 10})
	v := b.View()
	for _, want := range []string{"50.0%", "vectors", "rebuild", "5/10", "fact"} {
		if !strings.Contains(v, want) {
			t.Fatalf("budget lacks %q:\n%s", want, v)
		}
	}
	if b.Title() != "Budget 50%" {
		t.Fatalf("title %q", b.Title())
	}
}

// runAll runs cmd and the commands inside batches and WorkDoneMsgs,
// returning every message they produce, in order (no ticks are run).
func runAll(cmd tea.Cmd) []tea.Msg {
	var out []tea.Msg
	queue := []tea.Cmd{cmd}
	for len(queue) > 0 {
		c := queue[0]
		queue = queue[1:]
		if c == nil {
			continue
		}
		switch m := c().(type) {
		case tea.BatchMsg:
			queue = append(queue, m...)
		case WorkDoneMsg:
			out = append(out, m.Msg)
		default:
			out = append(out, m)
		}
	}
	return out
}

// TestCompactBeforeTheBudgetLoadsStillAsks (issue 23 item 8): c on the
// Budget pane before its data has arrived must still ask before dropping
// an expired quarantine entry nobody looked at — and drop nothing until
// the person says yes.
func TestCompactBeforeTheBudgetLoadsStillAsks(t *testing.T) {
	clock := now
	st, err := memcore.Open(context.Background(), t.TempDir(), memcore.Options{Now: func() time.Time { return clock }})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close(context.Background())
	ctx := context.Background()
	r, err := st.Add(ctx, memcore.AddRequest{Text: "a blog says staging resets at midnight", Source: memcore.SourceWeb})
	if err != nil || !r.Quarantined {
		t.Fatalf("add: %v %+v", err, r)
	}
	clock = clock.Add(8 * 24 * time.Hour) // past the 7-day TTL
	d := NewDeps(ctx, st, theme.NewStyles(theme.Default()), "notty")
	b := NewBudget(d) // Init (the load) never runs
	b.SetSize(100, 30)
	var confirm *ConfirmMsg
	for _, m := range runAll(b.Update(runes("c"))) {
		for _, m2 := range runAll(b.Update(m)) {
			if c, ok := m2.(ConfirmMsg); ok {
				confirm = &c
			}
		}
	}
	if q, _ := st.Quarantined(ctx); len(q) != 1 {
		t.Fatalf("c compacted before the person answered: %d entries left", len(q))
	}
	if confirm == nil || !strings.Contains(confirm.Question, "an expired quarantine entry you have not looked at") {
		t.Fatalf("no prompt before dropping an unseen expired entry: %+v", confirm)
	}
	for _, m := range runAll(confirm.Yes) {
		runAll(b.Update(m))
	}
	if q, _ := st.Quarantined(ctx); len(q) != 0 {
		t.Fatalf("yes did not compact: %d entries left", len(q))
	}
}

// TestFilterTypoIsNamed (issue 26 polish): "/tpye:decision" says there
// is no field tpye and which fields there are, in the Atoms pane and a
// list pane; a time or a URL in a filter is a word.
func TestFilterTypoIsNamed(t *testing.T) {
	a := newAtomsPane(t, sampleAtoms())
	a.filter = "tpye:decision"
	a.apply()
	if v := a.View(); !strings.Contains(v, `no field "tpye": try type, source, project, sess`) {
		t.Fatalf("atoms header:\n%s", v)
	}
	f := NewListFilter("", []string{"source", "reason"}, map[string]string{"src": "source"})
	f.Set("sorce:web")
	if l := f.Label(); !strings.Contains(l, `no field "sorce": try reason, source`) {
		t.Fatalf("list label %q", l)
	}
	for _, ok := range []string{"source:web", "SRC:web", "deploy at 10:30", "see https://example.com/x", "plain words"} {
		f.Set(ok)
		if l := f.Label(); strings.Contains(l, "no field") {
			t.Errorf("%q: %q", ok, l)
		}
	}
}

// TestBudgetBarsTellSmallSharesApart (issue 26 polish): shares under 1%
// of the cap draw different bars.
func TestBudgetBarsTellSmallSharesApart(t *testing.T) {
	b := NewBudget(testDeps())
	seen := map[string]float64{}
	for _, f := range []float64{0.001, 0.004, 0.007, 0.0095} {
		bar := b.progress(f, 50)
		if prev, dup := seen[bar]; dup {
			t.Errorf("%.1f%% and %.1f%% draw the same bar %q", 100*prev, 100*f, bar)
		}
		seen[bar] = f
		if n := len([]rune(bar)); n != 50 {
			t.Errorf("bar for %.1f%% is %d cells", 100*f, n)
		}
	}
}

// TestProjectColumnOnWideTerminals (issue 26 polish): from 130 columns
// the atoms list has a PROJECT column with the project's name.
func TestProjectColumnOnWideTerminals(t *testing.T) {
	a := newAtomsPane(t, sampleAtoms())
	if v := a.View(); strings.Contains(v, "PROJECT") {
		t.Fatalf("PROJECT at 100 columns:\n%s", v)
	}
	a.SetSize(160, 20)
	v := a.View()
	if !strings.Contains(v, "PROJECT") || !strings.Contains(v, "payments-api") || !strings.Contains(v, "webshop") || strings.Contains(v, "~/src/") {
		t.Fatalf("no PROJECT column at 160 columns:\n%s", v)
	}
	if projectName(`C:\src\app`) != "app" || projectName("") != "–" {
		t.Fatal("projectName")
	}
}

// TestAssocHeaderCountsWhatIsDrawn (issue 26 polish): the header counts
// the neighbours drawn — of how many under a filter — and the atoms at
// depth 2.
func TestAssocHeaderCountsWhatIsDrawn(t *testing.T) {
	atoms := sampleAtoms()
	g := NewAssoc(testDeps())
	g.SetSize(100, 30)
	g.Follow(atoms[0].ID)
	g.depth = 2
	g.Update(AssocLoadedMsg{ID: atoms[0].ID, Depth: 2, Graph: Graph{Centre: atoms[0], Edges: []GEdge{
		{Kind: "temporal", Atom: atoms[1], Children: []GEdge{{Kind: "task", Atom: atoms[5]}, {Kind: "task", Atom: atoms[9]}}, More: 3},
		{Kind: "semantic", Atom: atoms[2]}}}})
	if v := g.View(); !strings.Contains(v, "depth 2 · 2 neighbours, 2 at depth 2 (+3 not drawn)") {
		t.Fatalf("header:\n%s", v)
	}
	g.filter.Set("kind:semantic")
	g.flatten(true)
	if v := g.View(); !strings.Contains(v, "1 of 2 neighbours, 0 at depth 2") {
		t.Fatalf("filtered header:\n%s", v)
	}
}

// TestAtomMarkdownShowsQuoteAndEvidence: the detail view shows the
// person's words a memory rests on and the message a kept lane entry
// came from (issue 21).
func TestAtomMarkdownShowsQuoteAndEvidence(t *testing.T) {
	at := memcore.Atom{ID: "0123456789abcdef0123456789abcdef", Type: "preference", SourceClass: memcore.SourceUserApproved,
		Text: "User prefers short answers", Quote: "keep your answers short",
		Origin: &memcore.Origin{SourceClass: memcore.SourceUserSaid, Reason: "kept from the lane: may be a one-off remark", Evidence: "keep your answers short, I read on my phone"}}
	md := AtomMarkdown(at, nil, nil, time.Now(), 0)
	for _, want := range []string{"keep your answers short", "rests on", "evidence (the message it came from)", "I read on my phone"} {
		if !strings.Contains(md, want) {
			t.Errorf("detail lacks %q:\n%s", want, md)
		}
	}
}

// A load started before an act can finish after the reload that followed
// the act; the pane keeps the newer list (the lane's tab showed a count
// from before an undo once, in TestE2ELane under load).
func TestListPaneDropsAnOlderLoad(t *testing.T) {
	p := NewLane(testDeps())
	entry := func(id string) memcore.LaneEntry { return memcore.LaneEntry{ID: id, Text: "entry " + id} }
	p.Update(LaneLoadedMsg{Items: []memcore.LaneEntry{entry("a"), entry("b")}, Seq: 2})
	p.Update(LaneLoadedMsg{Items: []memcore.LaneEntry{entry("a")}, Seq: 1})
	if got := p.Title(); got != "Lane 2" {
		t.Fatalf("after a newer then an older load, title %q, want Lane 2", got)
	}
	p.Update(LaneLoadedMsg{Items: []memcore.LaneEntry{entry("c")}, Seq: 3})
	if got := p.Title(); got != "Lane 1" {
		t.Fatalf("after the newest load, title %q, want Lane 1", got)
	}
}
