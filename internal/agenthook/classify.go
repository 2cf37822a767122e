package agenthook

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"strings"

	"github.com/odekmem/odekmem/internal/lazyre"
	"github.com/odekmem/odekmem/internal/textutil"
	"github.com/odekmem/odekmem/memcore"
)

// Claude Code fires UserPromptSubmit not only for a prompt the person
// typed but also when a scheduled task (/loop, cron) runs, when a
// background subagent returns (<task-notification>), and when another
// session sends a message (SendMessage). As of Claude Code 2.1.x the hook
// input carries no field that tells these apart (anthropics/claude-code
// issue #94675, open); the transcript entry may carry isMeta/promptSource
// markers. So a prompt counts as typed only when nothing says otherwise:
//
//   - the hook fired in the main agent (no agent_id: a subagent's hooks
//     carry one);
//   - no provenance field in the input (prompt_source, promptSource,
//     origin, is_meta, isMeta, send_message_type, ...) names anything but
//     the user — a future Claude Code version that adds one is honoured;
//   - the prompt does not start with a machine-formatted wrapper
//     (<task-notification>, <system-reminder>, a cross-session or
//     teammate message, command output …) — pasted markup counts too;
//   - the transcript's user entries with this prompt, if present, are not
//     all marked isMeta or with a non-user prompt source (the same words
//     typed earlier in the session vouch for them: a prompt typed twice
//     is typed twice).
//
// Anything else is tainted.

var machineWrapper = lazyre.New(`(?is)^\s*(<[a-z][a-z0-9_-]*(\s[^>]*)?>|\[(request interrupted|scheduled|cron|loop|task|message from)[^\]]*\])`)

var provenanceKeys = []string{"prompt_source", "promptSource", "origin", "prompt_origin", "source_type", "is_meta", "isMeta", "send_message_type", "sendMessageType", "is_synthetic", "isSynthetic"}

// typedValues are provenance values that mean "the person typed it".
var typedValues = map[string]bool{"user": true, "typed": true, "keyboard": true, "human": true, "user_query": true, "userquery": true, "prompt": true, "false": true, "": true}

// ClassifyPrompt reports whether a UserPromptSubmit prompt was clearly
// typed by the person; otherwise the source class to quarantine it under
// and why.
func ClassifyPrompt(p Payload, raw map[string]json.RawMessage) (typed bool, source memcore.Source, why string) {
	if p.AgentID != "" {
		return false, memcore.SourceSubagent, "fired inside a subagent"
	}
	for _, k := range provenanceKeys {
		v, ok := raw[k]
		if !ok {
			continue
		}
		if !typedValues[strings.ToLower(strings.Trim(string(v), `" `))] {
			return false, memcore.SourceAgentGenerated, k + "=" + textutil.TruncateChars(strings.Trim(string(v), `"`), 40)
		}
	}
	if m := machineWrapper.FindString(p.Prompt); m != "" {
		src := memcore.SourceAgentGenerated
		if strings.Contains(strings.ToLower(m), "task-notification") || strings.Contains(strings.ToLower(m), "subagent") {
			src = memcore.SourceSubagent
		}
		return false, src, "machine-formatted prompt " + textutil.TruncateChars(strings.TrimSpace(m), 40)
	}
	if strings.TrimSpace(p.Prompt) == "" {
		return false, memcore.SourceAgentGenerated, "empty prompt"
	}
	if why := transcriptMarks(p.TranscriptPath, p.Prompt); why != "" {
		return false, memcore.SourceAgentGenerated, why
	}
	return true, memcore.SourceUserSaid, ""
}

// transcriptTail is how much of the transcript end is read.
const transcriptTail = 1 << 20

// transcriptMarks reads the end of the session transcript (JSONL) and
// returns why the user entries carrying prompt are not typed ones: "" when
// one of them is typed (a prompt the person typed twice), or when no such
// entry is there yet.
func transcriptMarks(path, prompt string) string {
	if path == "" {
		return ""
	}
	// Only a regular file is read. A FIFO (or a device) named by a planted
	// transcript_path would block the open forever, and with it a serve
	// goroutine and serve's idle exit: the path is checked first and opened
	// without blocking, then checked again on the open file.
	if li, err := os.Lstat(path); err != nil || !li.Mode().IsRegular() {
		return ""
	}
	f, err := openNoBlock(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() {
		return ""
	}
	off := max(0, fi.Size()-transcriptTail)
	buf := make([]byte, fi.Size()-off)
	if _, err := f.ReadAt(buf, off); err != nil && err != io.EOF {
		return ""
	}
	lines := bytes.Split(buf, []byte("\n"))
	want := strings.TrimSpace(prompt)
	why := "" // the newest non-typed entry with the prompt's words
	for i := len(lines) - 1; i >= 0; i-- {
		var e struct {
			Type         string          `json:"type"`
			IsMeta       bool            `json:"isMeta"`
			PromptSource string          `json:"promptSource"`
			Origin       json.RawMessage `json:"origin"`
			Message      struct {
				Role    string          `json:"role"`
				Content json.RawMessage `json:"content"`
			} `json:"message"`
		}
		if json.Unmarshal(lines[i], &e) != nil || e.Type != "user" {
			continue
		}
		if strings.TrimSpace(contentText(e.Message.Content)) != want {
			continue
		}
		var mark string
		switch {
		case e.IsMeta:
			mark = "transcript marks the prompt isMeta"
		case e.PromptSource != "" && !typedValues[strings.ToLower(e.PromptSource)]:
			mark = "transcript promptSource=" + textutil.TruncateChars(e.PromptSource, 40)
		case len(e.Origin) > 0 && !typedValues[strings.ToLower(strings.Trim(string(e.Origin), `" `))] && !bytes.Contains(bytes.ToLower(e.Origin), []byte(`"user"`)):
			mark = "transcript origin " + textutil.TruncateChars(string(e.Origin), 40)
		}
		// A prompt typed twice is typed twice: any entry with these words
		// that the person typed vouches for them, whatever a scheduled
		// or injected entry with the same words says.
		if mark == "" {
			return ""
		}
		if why == "" {
			why = mark
		}
	}
	return why
}

// contentText is a message content as text: a string, or the text parts
// of a content array.
func contentText(c json.RawMessage) string {
	var s string
	if json.Unmarshal(c, &s) == nil {
		return s
	}
	var parts []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if json.Unmarshal(c, &parts) != nil {
		return ""
	}
	var b strings.Builder
	for _, p := range parts {
		if p.Type == "text" {
			b.WriteString(p.Text)
		}
	}
	return b.String()
}
