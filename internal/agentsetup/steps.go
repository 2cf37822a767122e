package agentsetup

import (
	"fmt"
	"strings"
)

// Steps are what the person still has to do for the agent to use what
// setup wrote — the step that would otherwise fail silently — and how to
// check it.
func Steps(o Options, changes []Change) []string {
	if o.Remove {
		return []string{"Restart the agent: a running session keeps the settings it started with."}
	}
	hooksChanged := false
	for _, c := range changes {
		if strings.HasSuffix(c.Path, "hooks.json") && c.Changed() {
			hooksChanged = true
		}
	}
	var s []string
	switch o.Agent {
	case "codex":
		if hooksChanged {
			s = append(s, fmt.Sprintf("Trust the hooks in Codex: Codex runs a new or changed hook only after you trust it, and `codex exec` skips an untrusted one without a word. "+
				"Start `codex` in a terminal, type /hooks, and trust odekmem's %d hooks. Any later change of the hook command (--tool-results, another --home, odekmem-hook installed) asks again.", len(events(o))))
		}
		if o.Project {
			s = append(s, "Trust this folder in Codex: it reads a project's .codex/ only in a trusted project (answer the prompt when `codex` starts here).")
		}
	case "claude-code":
		if o.Project {
			s = append(s, "Approve the project's MCP server: Claude Code asks each person once before it starts odekmem from .mcp.json (until then `claude -p` runs without it).")
		}
	case "gemini":
		if o.Project {
			s = append(s, "Trust this folder in Gemini CLI if folder trust is on: it ignores a project's .gemini/settings.json in an untrusted folder.",
				"Gemini CLI reads tool policies only from your user directory: run `odekmem setup gemini` (without --project) to pre-approve odekmem's tools, or `gemini -p` offers none of them.")
		}
	}
	if o.Project {
		s = append(s, "The files name odekmem by its absolute path on this machine; a teammate runs `odekmem setup "+o.Agent+" --project` to point them at theirs.")
	}
	s = append(s, "Restart the agent (a running session keeps its settings), then check everything with: odekmem doctor")
	return s
}
