package agenthook_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/odekmem/odekmem/internal/agenthook"
	"github.com/odekmem/odekmem/internal/testkit"
	"github.com/odekmem/odekmem/memcore"
)

// rememberThatSession plays one session through the real hook binary: the
// person asks for something, the agent fetches a web page, reads a file
// and calls an MCP tool (each result quarantined with --tool-results),
// then the person types msg. It returns the context the agent got for
// msg and the store's home.
func rememberThatSession(t *testing.T, msg string, env []string) (ctx, home string) {
	t.Helper()
	home = t.TempDir()
	_, cwd := project(t)
	prompt := func(p string) run {
		return hook(t, bin, home, payload(t, map[string]any{"session_id": "s", "cwd": cwd, "hook_event_name": "UserPromptSubmit", "prompt": p}), env, "--tool-results")
	}
	tool := func(name string, resp any) {
		r := hook(t, bin, home, payload(t, map[string]any{"session_id": "s", "cwd": cwd, "hook_event_name": "PostToolUse", "tool_name": name,
			"tool_input": map[string]any{}, "tool_response": resp, "tool_use_id": "toolu_1"}), env, "--tool-results")
		if r.code != 0 || r.stdout != "" {
			t.Fatalf("%s: exit %d stdout %q", name, r.code, r.stdout)
		}
	}
	prompt("Look up how other teams size the pgxpool and check our config.")
	tool("WebFetch", "Blog: always set pgxpool max connections to 100 in production.")
	tool("Read", map[string]any{"type": "text", "file": map[string]any{"filePath": "/x/config/db.yaml", "content": "max_conns: 100 # copied from the blog"}})
	tool("mcp__docs__search", []any{map[string]any{"type": "text", "text": "Release notes say pool sizes above 50 are supported."}})
	if slices.Contains(env, "ODEKMEM_NO_SERVE=") {
		// The first call started odekmem serve; the message under test
		// must reach it.
		sock := agenthook.SocketPath(filepath.Join(home, "memory", "extended"))
		for i := 0; i < 400; i++ {
			if _, err := os.Stat(sock); err == nil {
				break
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	r := prompt(msg)
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	if r.stdout == "" {
		return "", home
	}
	return context_(t, r, "UserPromptSubmit"), home
}

// TestRememberThatClauseNeverPromotesWhatTheAgentRead (issue 26, blocker):
// "odek, remember that <clause>" stores the clause as the person's words
// and approves nothing the agent read — for every clause that happens to
// end in a noun naming a source — and the agent is told what was stored.
func TestRememberThatClauseNeverPromotesWhatTheAgentRead(t *testing.T) {
	for _, c := range []struct{ msg, clause string }{
		{"odek, remember that I prefer short answers.", "I prefer short answers"},
		{"odek, remember that I like short answers.", "I like short answers"},
		{"odek, remember that we keep release notes.", "we keep release notes"},
		{"odek, remember that CI uploads build logs.", "CI uploads build logs"},
		{"odek, remember that staging uses separate config files.", "staging uses separate config files"},
		{"Thanks! odek, remember that the pool size comes from our load tests, not blog posts.", "the pool size comes from our load tests, not blog posts"},
		{"odek, remember that reviewers expect links to the test results", "reviewers expect links to the test results"},
	} {
		t.Run(c.msg, func(t *testing.T) {
			ctx, home := rememberThatSession(t, c.msg, nil)
			st := testkit.OpenHome(t, home)
			defer st.Close(context.Background())
			if q := must(st.Quarantined(context.Background())); len(q) != 3 {
				t.Errorf("%d entries left in quarantine, want all 3 the agent read: %+v", len(q), q)
			}
			var said bool
			for _, a := range must(st.List(context.Background(), memcore.Filter{})) {
				if a.SourceClass != memcore.SourceUserSaid {
					t.Errorf("%s atom %q: only the person's words may be live", a.SourceClass, a.Text)
				}
				if a.Text == c.clause {
					said = true
				}
			}
			if !said {
				t.Errorf("the clause %q was not stored as the person's words: %+v", c.clause, must(st.List(context.Background(), memcore.Filter{})))
			}
			if !strings.Contains(ctx, "stored as the person's words") || !strings.Contains(ctx, c.clause) || strings.Contains(ctx, "approved into trusted memory") {
				t.Errorf("the agent was not told what was stored:\n%s", ctx)
			}
			if log := readLog(home); !strings.Contains(log, "inline command: stored as the person's words") {
				t.Errorf("hook.log says nothing of the inline command:\n%s", log)
			}
		})
	}
}

// TestNamedApprovalIsReportedToThePerson: a determiner before a source
// noun approves that source's newest entry, and the agent's context says
// what became trusted and how to take it back.
func TestNamedApprovalIsReportedToThePerson(t *testing.T) {
	for _, mode := range []struct {
		name string
		env  []string
	}{{"in process", nil}, {"via serve", []string{"ODEKMEM_NO_SERVE=", "ODEKMEM_SERVE_IDLE=2s"}}} {
		t.Run(mode.name, func(t *testing.T) {
			ctx, home := rememberThatSession(t, "odek, remember that page", mode.env)
			if !strings.Contains(ctx, "approved into trusted memory (was web)") || !strings.Contains(ctx, "pgxpool max connections") ||
				!strings.Contains(ctx, "odekmem forget ") || !strings.Contains(ctx, `source="memory_approvals"`) {
				t.Fatalf("the approval was not reported inside a wrapper:\n%s", ctx)
			}
			st := testkit.OpenHome(t, home)
			defer st.Close(context.Background())
			live := must(st.List(context.Background(), memcore.Filter{}))
			if len(live) != 1 || live[0].SourceClass != memcore.SourceUserApproved || live[0].Origin == nil || live[0].Origin.SourceClass != memcore.SourceWeb {
				t.Fatalf("want only the web page promoted, live: %+v", live)
			}
			if q := must(st.Quarantined(context.Background())); len(q) != 2 {
				t.Errorf("%d entries left in quarantine, want the file and the MCP result", len(q))
			}
			log := readLog(home)
			if !strings.Contains(log, "inline command: approved "+live[0].ID[:8]+" (from web)") {
				t.Errorf("hook.log does not name the approval:\n%s", log)
			}
			if mode.env != nil && !strings.Contains(log[strings.LastIndex(log, "UserPromptSubmit"):], "via serve") {
				t.Errorf("the approval was not answered by odekmem serve:\n%s", log)
			}
		})
	}
}

func readLog(home string) string {
	b, _ := os.ReadFile(filepath.Join(home, "memory", "extended", "hook.log"))
	return string(b)
}
