package cli_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/odekmem/odekmem/internal/cli"
	"github.com/odekmem/odekmem/internal/config"
	"github.com/odekmem/odekmem/memcore"
)

// TestDemoOneClock: the TUI's demo store runs on the real clock, re-dated
// so ages look as generated; a CLI write in the same home (real clock)
// removes none of the quarantine entries the TUI shows as still live, and
// the TUI and the CLI agree on what has expired. Quitting removes the
// temp copy and says where it was.
func TestDemoOneClock(t *testing.T) {
	var out, errb bytes.Buffer
	var tmpHome string
	ranTUI := false
	runTUI := func(ctx context.Context, st *memcore.Store, settings config.Settings, title string) error {
		ranTUI = true
		tmpHome = settings.Home
		if d := time.Since(st.Now()); d < -time.Minute || d > time.Minute {
			t.Errorf("the TUI's store clock is %v off the real clock", d)
		}
		ttl := st.Config().QuarantineTTLDays
		var live []string
		for _, q := range must(st.Quarantined(ctx)) {
			if exp := q.ExpiresAt(ttl); exp.After(time.Now()) {
				live = append(live, q.ID)
			}
		}
		// Ages match the demo as generated: the newest atom was two days
		// old at the demo's epoch and is two days old now.
		newest := must(st.List(ctx, memcore.Filter{}))[0]
		if age := time.Since(newest.CreatedAt); age < 48*time.Hour || age > 50*time.Hour {
			t.Errorf("newest atom is %v old on the real clock, want about 2 days", age)
		}
		if len(live) == 0 || len(live) == len(must(st.Quarantined(ctx))) {
			t.Fatalf("fixture: %d of %d quarantine entries live", len(live), len(must(st.Quarantined(ctx))))
		}
		// The CLI, in another process's shoes, writes to the same home.
		var o, e bytes.Buffer
		code := cli.Main([]string{"--home", settings.Home, "add", "One clock canary: the CLI and the TUI agree"},
			cli.Env{Stdout: &o, Stderr: &e, Stdin: strings.NewReader(""), Getenv: func(string) string { return "" }, ProjectDir: settings.Home})
		if code != 0 {
			t.Fatalf("cli add: %d %s", code, e.String())
		}
		if _, err := st.Refresh(ctx); err != nil {
			t.Fatal(err)
		}
		for _, id := range live {
			if _, q, err := st.Get(ctx, id); err != nil || q == nil {
				t.Errorf("quarantine entry %s, live on the TUI's clock, was removed by a CLI write: %v", id, err)
			}
		}
		if _, err := os.Stat(filepath.Join(settings.Home, "memory", "extended", "atoms.json")); err != nil {
			t.Errorf("demo copy missing while the TUI runs: %v", err)
		}
		return nil
	}
	code := cli.Main([]string{"--home", t.TempDir(), "demo"}, cli.Env{Stdout: &out, Stderr: &errb, Stdin: strings.NewReader(""),
		Getenv: func(string) string { return "" }, Demo: os.DirFS("../../testdata/demo"), RunTUI: runTUI})
	if code != 0 || !ranTUI {
		t.Fatalf("demo: code %d, TUI ran %v: %s %s", code, ranTUI, out.String(), errb.String())
	}
	if _, err := os.Stat(tmpHome); !os.IsNotExist(err) {
		t.Errorf("demo temp dir %s still there after quit: %v", tmpHome, err)
	}
	if !strings.Contains(out.String(), tmpHome) || !strings.Contains(out.String(), "removed") {
		t.Errorf("quit does not say where the demo copy was: %q", out.String())
	}
}

// TestDemoHasDecisionsWaiting: the store odekmem demo opens has a
// contradiction waiting (keep new / keep old / keep both) and lane entries
// to keep or drop, re-dated like the rest, and opens without a problem.
func TestDemoHasDecisionsWaiting(t *testing.T) {
	ran := false
	runTUI := func(ctx context.Context, st *memcore.Store, settings config.Settings, title string) error {
		ran = true
		if p := st.Problems(); len(p) > 0 {
			t.Errorf("the demo store opens with problems: %+v", p)
		}
		cs := must(st.Contradictions(ctx, false))
		if len(cs) == 0 {
			t.Error("the demo has no contradiction waiting")
		}
		for _, c := range cs {
			linked := false
			for _, l := range must(st.Links(ctx, c.Old)) {
				linked = linked || l.ID == c.New && l.Kind == "supersedes"
			}
			if !linked {
				t.Errorf("contradiction %s: its atoms are not linked as supersedes", c.ID)
			}
		}
		lane := must(st.Lane(ctx))
		if len(lane) == 0 {
			t.Fatal("the demo has nothing in the lane")
		}
		// Re-dated with the rest: the newest entry is about a day old.
		if age := time.Since(lane[0].CreatedAt); age < 20*time.Hour || age > 30*time.Hour {
			t.Errorf("newest lane entry is %v old on the real clock, want about a day", age)
		}
		return nil
	}
	var out, errb bytes.Buffer
	code := cli.Main([]string{"--home", t.TempDir(), "demo"}, cli.Env{Stdout: &out, Stderr: &errb, Stdin: strings.NewReader(""),
		Getenv: func(string) string { return "" }, Demo: os.DirFS("../../testdata/demo"), RunTUI: runTUI})
	if code != 0 || !ran {
		t.Fatalf("demo: code %d, TUI ran %v: %s %s", code, ran, out.String(), errb.String())
	}
}

// TestCompactSaysWhatHappenedInWords: compact never prints a negative
// "reclaimed"; a store that grows says why.
func TestCompactSaysWhatHappenedInWords(t *testing.T) {
	home := newHome(t)
	for _, s := range []string{"We decided to keep payouts in UTC", "The ledger uses PostgreSQL 16", "Deploys go through Argo CD"} {
		if r := run(t, home, "", "add", s); r.code != 0 {
			t.Fatalf("add: %+v", r)
		}
	}
	r := run(t, home, "", "compact")
	if r.code != 0 || !strings.HasPrefix(r.stdout, "compacted: ") {
		t.Fatalf("compact: %+v", r)
	}
	if regexp.MustCompile(`-\d`).MatchString(r.stdout) {
		t.Errorf("compact prints a negative size: %q", r.stdout)
	}
	if !regexp.MustCompile(`^compacted: (reclaimed \S+ \S+ \(|grew by \S+ \S+: the vector cache was rebuilt|same size)`).MatchString(r.stdout) {
		t.Errorf("compact does not say what happened: %q", r.stdout)
	}
}
