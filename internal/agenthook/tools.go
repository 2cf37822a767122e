package agenthook

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/odekmem/odekmem/internal/hookproto"
	"github.com/odekmem/odekmem/internal/lazyre"
	"github.com/odekmem/odekmem/internal/scan"
	"github.com/odekmem/odekmem/internal/textutil"
	"github.com/odekmem/odekmem/internal/vocab"
	"github.com/odekmem/odekmem/memcore"
)

// ToolSource maps a Claude Code tool name onto the source class of its
// result; "" means the result is not worth keeping (edits, to-do lists,
// odekmem's own MCP tools).
// Claude Code and Codex name MCP tools mcp__<server>__<tool>, Gemini CLI
// mcp_<server>_<tool>.
func ToolSource(tool string) memcore.Source {
	t := strings.ToLower(tool)
	switch {
	case strings.HasPrefix(t, "mcp__odekmem__"), strings.HasPrefix(t, "mcp_odekmem_"):
		return "" // our own tools: already in the store
	case strings.HasPrefix(t, "mcp_"):
		return memcore.SourceMCP
	}
	switch t {
	case "webfetch", "websearch", "web_fetch", "google_web_search", "web_search":
		return memcore.SourceWeb
	case "read", "grep", "glob", "notebookread", "ls", "read_file", "read_many_files", "search_file_content", "list_directory":
		return memcore.SourceFileRead
	case "task", "agent", "delegate_to_agent":
		return memcore.SourceSubagent
	case "edit", "multiedit", "write", "notebookedit", "todowrite", "exitplanmode", "askuserquestion",
		"write_file", "replace", "save_memory", "write_todos", "apply_patch", "update_plan":
		return ""
	}
	return memcore.SourceToolOutput // Bash, BashOutput and anything new
}

// responseText pulls the readable part out of a tool_response, which is a
// string or an object whose shape depends on the tool.
func responseText(r json.RawMessage) string {
	var s string
	if json.Unmarshal(r, &s) == nil {
		return s
	}
	var obj map[string]json.RawMessage
	if json.Unmarshal(r, &obj) == nil {
		var parts []string
		for _, k := range []string{"stdout", "stderr", "output", "result", "content", "text", "results", "llmContent"} {
			if v, ok := obj[k]; ok {
				if t := responseText(v); strings.TrimSpace(t) != "" {
					parts = append(parts, t)
				}
			}
		}
		if f, ok := obj["file"]; ok {
			if t := responseText(f); t != "" {
				parts = append(parts, t)
			}
		}
		if len(parts) > 0 {
			return strings.Join(parts, "\n")
		}
	}
	var arr []json.RawMessage
	if json.Unmarshal(r, &arr) == nil {
		var parts []string
		for _, v := range arr {
			if t := responseText(v); t != "" {
				parts = append(parts, t)
			}
		}
		return strings.Join(parts, "\n")
	}
	return strings.TrimSpace(string(r))
}

func postToolUse(ctx context.Context, rt *Runtime, o Options, p Payload) error {
	src := ToolSource(p.ToolName)
	if src == "" || p.SessionID == "" {
		return nil
	}
	if isAcknowledgement(p.ToolResponse) {
		return nil // a launch acknowledgement says nothing worth keeping
	}
	text := strings.TrimSpace(ToolResultText(responseText(p.ToolResponse)))
	if text == "" || ackRe.MatchString(text) {
		return nil
	}
	turn, _, _, _ := rt.previous(p.SessionID) // the turn the tool ran in
	return quarantineText(ctx, rt, p, src, "tool "+p.ToolName, text, turn)
}

// ToolResultText is a tool result without the agent's own framing, so the
// scanner judges what the tool returned and the reviewer reads it:
// Gemini CLI wraps every tool result in <untrusted_context> and frames a
// shell result as "Output: …" with "Exit Code:", "Signal:",
// "Background PIDs:" and "Process Group PGID:" lines; Codex frames a
// command's output with "Chunk ID:", "Wall time:", "Process exited with
// code …", "Original token count:" and "Output:" lines. A result without
// such framing comes back as it is.
func ToolResultText(s string) string {
	t := strings.TrimSpace(s)
	// Gemini CLI's wrapper (its wrapUntrusted escapes a closing tag inside).
	for {
		inner, ok := strings.CutPrefix(t, "<untrusted_context>")
		if !ok {
			break
		}
		inner, ok = strings.CutSuffix(strings.TrimSpace(inner), "</untrusted_context>")
		if !ok {
			break
		}
		t = strings.TrimSpace(strings.ReplaceAll(inner, "&lt;/untrusted_context&gt;", "</untrusted_context>"))
	}
	if out, ok := geminiShellOutput(t); ok {
		return out
	}
	if out, ok := codexExecOutput(t); ok {
		return out
	}
	return t
}

// geminiShellSection is a line of Gemini CLI's run_shell_command result.
var geminiShellSection = lazyre.New(`^(Output|Error|Exit Code|Signal|Background PIDs|Process Group PGID): ?`)

// geminiShellOutput returns the output (and a process-level error) of a
// Gemini CLI shell result, without the status lines.
func geminiShellOutput(t string) (string, bool) {
	if !strings.HasPrefix(t, "Output: ") && !strings.HasPrefix(t, "Output:\n") {
		return "", false
	}
	var keep []string
	section := ""
	for _, ln := range strings.Split(t, "\n") {
		if m := geminiShellSection.FindStringSubmatch(ln); m != nil {
			section = m[1]
			ln = ln[len(m[0]):]
		}
		switch section {
		case "Output", "Error":
			keep = append(keep, ln)
		}
	}
	out := strings.TrimSpace(strings.Join(keep, "\n"))
	if out == "(empty)" {
		out = ""
	}
	return out, true
}

var codexExecHeader = lazyre.New(`^(Chunk ID|Wall time|Process exited with code|Process running with session ID|Original token count|Total output lines)\b`)

// codexExecOutput returns the output of a Codex exec_command result, after
// its header lines and "Output:".
func codexExecOutput(t string) (string, bool) {
	lines := strings.Split(t, "\n")
	i := 0
	for i < len(lines) && codexExecHeader.MatchString(lines[i]) {
		i++
	}
	if i == 0 || i >= len(lines) || strings.TrimSpace(lines[i]) != "Output:" {
		return "", false
	}
	return strings.TrimSpace(strings.Join(lines[i+1:], "\n")), true
}

// ackRe are tool results that only acknowledge a launch: Claude Code's
// background agent and workflow, Gemini CLI's background command, Codex's
// still-running command.
var ackRe = lazyre.New(`(?s)^(Async agent launched successfully\.|Command moved to background \(PID: \d+\)\. Output hidden\.|Process running with session ID \d+\s*$)`)

// isAcknowledgement reports whether a tool response carries no content of
// its own: a launch status object ({"status": "async_launched", …}) or an
// acknowledgement text.
func isAcknowledgement(r json.RawMessage) bool {
	var obj struct {
		Status string `json:"status"`
	}
	if json.Unmarshal(r, &obj) == nil {
		switch obj.Status {
		case "async_launched", "launched", "backgrounded":
			return true
		}
	}
	var s string
	if json.Unmarshal(r, &s) == nil {
		return ackRe.MatchString(strings.TrimSpace(s))
	}
	return false
}

// reMarkup is an XML-like tag of a machine wrapper (<task-notification>,
// <status>, </result>).
var reMarkup = lazyre.New(`</?[a-zA-Z][\w:-]*(?:\s[^<>]*)?/?>`)

// quarantineText stores untrusted text as a quarantine candidate: the
// source class is tainted, so the store never puts it in recall before a
// person promotes it. The same text from the same source in the same
// session is kept once (an agent that reads a file twice, or runs the same
// command again, proposes nothing new).
func quarantineText(ctx context.Context, rt *Runtime, p Payload, source memcore.Source, what, text string, turn int) error {
	if !vocab.IsTainted(source) {
		return fmt.Errorf("refusing to store %s as trusted", what)
	}
	// Judged on the whole content: the scanner reads all of it (Whole),
	// secrets are redacted before anything is cut (a secret across the
	// cut would otherwise reach the store in part), and the stored excerpt
	// is the content, not the markup wrapped around it (an agent's
	// <task-notification> keeps its <result>).
	whole := strings.Join(strings.Fields(scan.StripUntrusted(text)), " ")
	if whole == "" {
		return nil
	}
	red, _ := scan.Redact(whole)
	excerpt := strings.Join(strings.Fields(reMarkup.ReplaceAllString(red, " ")), " ")
	if excerpt == "" {
		excerpt = red
	}
	if n := rt.Store.Config().AtomMaxChars; n > 1 {
		excerpt = textutil.TruncateChars(excerpt, n-1)
	}
	if rt.seenCandidate(p.SessionID, source, excerpt) {
		return nil
	}
	_, err := rt.Store.Add(ctx, memcore.AddRequest{Text: excerpt, Whole: whole, Type: memcore.TypeObservation, Source: source, Confidence: 0.5,
		Context: memcore.AtomContext{SessionID: p.SessionID, Turn: turn, Project: ProjectRoot(p.Cwd)}})
	if err != nil {
		return fmt.Errorf("quarantine %s: %w", what, err)
	}
	return nil
}

// seenCandidate reports whether the quarantine already holds text from
// source in session (compared as stored: redacted, whitespace and case
// folded).
func (rt *Runtime) seenCandidate(session string, source memcore.Source, text string) bool {
	red, _ := scan.Redact(text)
	key := textutil.Normalize(red)
	q, err := rt.Store.Quarantined(context.Background())
	if err != nil {
		return false
	}
	for i := len(q) - 1; i >= 0; i-- {
		a := q[i]
		if a.Context.SessionID == session && a.SourceClass == source && textutil.Normalize(a.Text) == key {
			return true
		}
	}
	return false
}

// logTo appends one line to the hook log under the store directory,
// secrets redacted and control characters removed. It never fails the
// caller.
func logTo(storeDir, format string, a ...any) {
	hookproto.AppendLog(storeDir, textutil.TruncateChars(visible(fmt.Sprintf(format, a...)), 2000))
}

// Log appends a line to the hook log under storeDir (for odekmem serve).
func Log(storeDir, format string, a ...any) { logTo(storeDir, format, a...) }
