package e2e_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// The scripted model server: one loopback HTTP server that speaks the three
// wire protocols the agents use — Anthropic Messages (Claude Code), OpenAI
// Responses (Codex CLI) and Gemini generateContent (Gemini CLI) — each
// streamed the way its client asks. It does not generate anything: every
// answer comes from a script keyed on what the person typed, so the test
// decides which tool the "model" calls and with which arguments, and
// every request is kept for the assertions (what reached the model).

// action is one answer of the scripted model: a tool call (tool names the
// end of the agent's name for the tool, e.g. "search_memories" matches
// mcp__odekmem__search_memories) or a final text.
type action struct {
	tool string
	args map[string]any
	text string
}

// step is a prompt the person types and the model's answers to it, one per
// request: the first request of the turn gets actions[0], the request that
// carries its tool result gets actions[1], and so on.
type step struct {
	prompt  string
	actions []action
}

// request is one request the server received, as the test reads it back.
type request struct {
	Proto string          // anthropic, responses, gemini
	Path  string          // URL path
	Body  json.RawMessage // as sent
	Main  bool            // the main conversation (odekmem's tools offered)
	Step  int             // index of the script step, -1 when none matched
	Tools []string        // tool names offered
	// Results are the texts of the tool results in the conversation.
	Results []toolResult
}

type toolResult struct{ Name, Text string }

type modelServer struct {
	t      testing.TB
	script []step
	url    string
	logDir string

	mu   sync.Mutex
	reqs []request
	seq  int
}

func newModelServer(t testing.TB, script []step, logDir string) *modelServer {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	m := &modelServer{t: t, script: script, url: "http://" + ln.Addr().String(), logDir: logDir}
	srv := &http.Server{Handler: m}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return m
}

func (m *modelServer) requests() []request {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]request(nil), m.reqs...)
}

func (m *modelServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(io.LimitReader(r.Body, 64<<20))
	m.mu.Lock()
	m.seq++
	n := m.seq
	m.mu.Unlock()
	if m.logDir != "" {
		os.WriteFile(filepath.Join(m.logDir, fmt.Sprintf("req-%03d.txt", n)),
			[]byte(r.Method+" "+r.URL.String()+"\n"+headerText(r.Header)+"\n"+string(body)), 0o600)
	}
	p := r.URL.Path
	switch {
	case r.Method == http.MethodPost && strings.HasSuffix(p, "/messages") && !strings.Contains(p, "count_tokens"):
		m.anthropic(w, p, body)
	case r.Method == http.MethodPost && strings.Contains(p, "count_tokens"):
		writeJSON(w, map[string]any{"input_tokens": 100})
	case r.Method == http.MethodPost && strings.HasSuffix(p, "/responses"):
		m.responses(w, p, body)
	case r.Method == http.MethodPost && strings.Contains(p, ":streamGenerateContent"):
		m.gemini(w, p, body, true)
	case r.Method == http.MethodPost && strings.Contains(p, ":generateContent"):
		m.gemini(w, p, body, false)
	case r.Method == http.MethodPost && strings.Contains(p, ":countTokens"):
		writeJSON(w, map[string]any{"totalTokens": 100})
	case r.Method == http.MethodGet && strings.HasSuffix(p, "/models"):
		writeJSON(w, map[string]any{"object": "list", "data": []any{}, "models": []any{}})
	default:
		http.NotFound(w, r)
	}
}

func headerText(h http.Header) string {
	var b strings.Builder
	for k, v := range h {
		if strings.EqualFold(k, "authorization") || strings.EqualFold(k, "x-api-key") || strings.EqualFold(k, "x-goog-api-key") {
			v = []string{"[redacted]"}
		}
		fmt.Fprintf(&b, "%s: %s\n", k, strings.Join(v, ", "))
	}
	return b.String()
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(v)
}

// next records a request and picks the scripted answer: the step whose
// prompt the person typed (the latest one found in the user's text), and
// within it the answer after as many tool results as the turn holds.
func (m *modelServer) next(proto, path string, body []byte, userText string, tools []string, results []toolResult) (action, bool) {
	req := request{Proto: proto, Path: path, Body: append(json.RawMessage(nil), body...), Step: -1, Tools: tools, Results: results}
	for _, t := range tools {
		if strings.HasSuffix(t, "search_memories") {
			req.Main = true
		}
	}
	for i := len(m.script) - 1; i >= 0; i-- {
		if strings.Contains(userText, m.script[i].prompt) {
			req.Step = i
			break
		}
	}
	m.mu.Lock()
	m.reqs = append(m.reqs, req)
	m.mu.Unlock()
	if !req.Main || req.Step < 0 {
		return action{text: "OK."}, false
	}
	acts := m.script[req.Step].actions
	k := min(len(results), len(acts)-1)
	a := acts[k]
	if a.tool == "" {
		return a, true
	}
	for _, t := range tools {
		if strings.HasSuffix(t, a.tool) {
			a.tool = t
			return a, true
		}
	}
	m.t.Errorf("%s: the agent offers no tool named *%s (offered: %s)", proto, a.tool, strings.Join(tools, ", "))
	return action{text: "The tool " + a.tool + " is not available."}, true
}

// ---- Anthropic Messages (Claude Code) ----

func (m *modelServer) anthropic(w http.ResponseWriter, path string, body []byte) {
	var req struct {
		Model    string `json:"model"`
		Stream   bool   `json:"stream"`
		System   json.RawMessage
		Messages []struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
		Tools []struct {
			Name string `json:"name"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	var tools []string
	for _, t := range req.Tools {
		tools = append(tools, t.Name)
	}
	names := map[string]string{} // tool_use id → name
	var user strings.Builder
	var results []toolResult
	for _, msg := range req.Messages {
		var s string
		if json.Unmarshal(msg.Content, &s) == nil {
			if msg.Role == "user" {
				user.WriteString(s + "\n")
			}
			continue
		}
		var blocks []struct {
			Type      string          `json:"type"`
			Text      string          `json:"text"`
			ID        string          `json:"id"`
			Name      string          `json:"name"`
			ToolUseID string          `json:"tool_use_id"`
			Content   json.RawMessage `json:"content"`
		}
		json.Unmarshal(msg.Content, &blocks)
		for _, b := range blocks {
			switch b.Type {
			case "text":
				if msg.Role == "user" {
					user.WriteString(b.Text + "\n")
				}
			case "tool_use":
				names[b.ID] = b.Name
			case "tool_result":
				results = append(results, toolResult{Name: names[b.ToolUseID], Text: anthropicContentText(b.Content)})
			}
		}
	}
	a, _ := m.next("anthropic", path, body, user.String(), tools, results)
	model := req.Model
	id := fmt.Sprintf("msg_e2e_%d", len(m.requests()))
	var content []map[string]any
	stop := "end_turn"
	if a.tool != "" {
		stop = "tool_use"
		content = append(content, map[string]any{"type": "tool_use", "id": "toolu_" + id, "name": a.tool, "input": a.args})
	} else {
		content = append(content, map[string]any{"type": "text", "text": a.text})
	}
	usage := map[string]any{"input_tokens": 100, "output_tokens": 20, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}
	if !req.Stream {
		writeJSON(w, map[string]any{"id": id, "type": "message", "role": "assistant", "model": model, "content": content,
			"stop_reason": stop, "stop_sequence": nil, "usage": usage})
		return
	}
	sse := newSSE(w)
	sse.event("message_start", map[string]any{"type": "message_start", "message": map[string]any{"id": id, "type": "message", "role": "assistant",
		"model": model, "content": []any{}, "stop_reason": nil, "stop_sequence": nil, "usage": usage}})
	for i, c := range content {
		if c["type"] == "tool_use" {
			args, _ := json.Marshal(c["input"])
			sse.event("content_block_start", map[string]any{"type": "content_block_start", "index": i,
				"content_block": map[string]any{"type": "tool_use", "id": c["id"], "name": c["name"], "input": map[string]any{}}})
			sse.event("content_block_delta", map[string]any{"type": "content_block_delta", "index": i,
				"delta": map[string]any{"type": "input_json_delta", "partial_json": string(args)}})
		} else {
			sse.event("content_block_start", map[string]any{"type": "content_block_start", "index": i,
				"content_block": map[string]any{"type": "text", "text": ""}})
			sse.event("content_block_delta", map[string]any{"type": "content_block_delta", "index": i,
				"delta": map[string]any{"type": "text_delta", "text": c["text"]}})
		}
		sse.event("content_block_stop", map[string]any{"type": "content_block_stop", "index": i})
	}
	sse.event("message_delta", map[string]any{"type": "message_delta", "delta": map[string]any{"stop_reason": stop, "stop_sequence": nil},
		"usage": map[string]any{"output_tokens": 20}})
	sse.event("message_stop", map[string]any{"type": "message_stop"})
}

func anthropicContentText(c json.RawMessage) string {
	var s string
	if json.Unmarshal(c, &s) == nil {
		return s
	}
	var parts []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	json.Unmarshal(c, &parts)
	var b strings.Builder
	for _, p := range parts {
		b.WriteString(p.Text)
	}
	return b.String()
}

// ---- OpenAI Responses (Codex CLI) ----

func (m *modelServer) responses(w http.ResponseWriter, path string, body []byte) {
	var req struct {
		Model  string            `json:"model"`
		Stream bool              `json:"stream"`
		Input  []json.RawMessage `json:"input"`
		Tools  []json.RawMessage `json:"tools"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	tools := responsesToolNames(req.Tools)
	names := map[string]string{} // call_id → name
	var user strings.Builder
	var results []toolResult
	for _, raw := range req.Input {
		var it struct {
			Type      string          `json:"type"`
			Role      string          `json:"role"`
			Content   json.RawMessage `json:"content"`
			Name      string          `json:"name"`
			Namespace string          `json:"namespace"`
			CallID    string          `json:"call_id"`
			Output    json.RawMessage `json:"output"`
		}
		json.Unmarshal(raw, &it)
		switch it.Type {
		case "message", "":
			if it.Role == "user" {
				user.WriteString(anthropicContentText(it.Content) + "\n")
				var parts []struct {
					Text string `json:"text"`
				}
				if json.Unmarshal(it.Content, &parts) == nil {
					for _, p := range parts {
						user.WriteString(p.Text + "\n")
					}
				}
			}
		case "function_call", "custom_tool_call":
			names[it.CallID] = nsName(it.Namespace, it.Name)
		case "function_call_output", "custom_tool_call_output", "mcp_tool_call_output":
			results = append(results, toolResult{Name: names[it.CallID], Text: responsesOutputText(it.Output)})
		}
	}
	a, _ := m.next("responses", path, body, user.String(), tools, results)
	id := fmt.Sprintf("resp_e2e_%d", len(m.requests()))
	var item map[string]any
	if a.tool != "" {
		args, _ := json.Marshal(a.args)
		ns, name := splitNS(req.Tools, a.tool)
		item = map[string]any{"type": "function_call", "id": "fc_" + id, "call_id": "call_" + id, "name": name, "arguments": string(args)}
		if ns != "" {
			item["namespace"] = ns
		}
	} else {
		item = map[string]any{"type": "message", "role": "assistant", "id": "msg_" + id, "status": "completed",
			"content": []any{map[string]any{"type": "output_text", "text": a.text, "annotations": []any{}}}}
	}
	sse := newSSE(w)
	sse.event("response.created", map[string]any{"type": "response.created", "response": map[string]any{"id": id}})
	sse.event("response.output_item.added", map[string]any{"type": "response.output_item.added", "output_index": 0, "item": item})
	sse.event("response.output_item.done", map[string]any{"type": "response.output_item.done", "output_index": 0, "item": item})
	sse.event("response.completed", map[string]any{"type": "response.completed", "response": map[string]any{"id": id,
		"usage": map[string]any{"input_tokens": 100, "input_tokens_details": nil, "output_tokens": 20, "output_tokens_details": nil, "total_tokens": 120}}})
}

// responsesToolNames lists the offered tools; Codex may group MCP tools
// in a namespace ({"type":"namespace","name":"mcp__odekmem__","tools":[…]}).
func responsesToolNames(raw []json.RawMessage) []string {
	var out []string
	for _, r := range raw {
		var t struct {
			Type  string            `json:"type"`
			Name  string            `json:"name"`
			Tools []json.RawMessage `json:"tools"`
		}
		json.Unmarshal(r, &t)
		if len(t.Tools) > 0 {
			for _, n := range responsesToolNames(t.Tools) {
				out = append(out, nsName(t.Name, n))
			}
			continue
		}
		if t.Name != "" {
			out = append(out, t.Name)
		}
	}
	return out
}

// nsName is how the test names a tool of a namespace: mcp__odekmem and
// search_memories are mcp__odekmem__search_memories, as the model sees it.
func nsName(ns, name string) string {
	switch {
	case ns == "":
		return name
	case strings.HasSuffix(ns, "__"):
		return ns + name
	}
	return ns + "__" + name
}

// splitNS finds the namespace and name of an offered tool.
func splitNS(raw []json.RawMessage, display string) (ns, name string) {
	for _, r := range raw {
		var t struct {
			Name  string `json:"name"`
			Tools []struct {
				Name string `json:"name"`
			} `json:"tools"`
		}
		json.Unmarshal(r, &t)
		for _, sub := range t.Tools {
			if nsName(t.Name, sub.Name) == display {
				return t.Name, sub.Name
			}
		}
	}
	return "", display
}

func responsesOutputText(o json.RawMessage) string {
	var s string
	if json.Unmarshal(o, &s) == nil {
		return s
	}
	var obj struct {
		Content json.RawMessage `json:"content"`
	}
	if json.Unmarshal(o, &obj) == nil && len(obj.Content) > 0 {
		return responsesOutputText(obj.Content)
	}
	var parts []struct {
		Text string `json:"text"`
	}
	json.Unmarshal(o, &parts)
	var b strings.Builder
	for _, p := range parts {
		b.WriteString(p.Text)
	}
	if b.Len() == 0 {
		return string(o)
	}
	return b.String()
}

// ---- Gemini generateContent (Gemini CLI) ----

func (m *modelServer) gemini(w http.ResponseWriter, path string, body []byte, stream bool) {
	var req struct {
		Contents []struct {
			Role  string `json:"role"`
			Parts []struct {
				Text             string `json:"text"`
				FunctionResponse *struct {
					Name     string          `json:"name"`
					Response json.RawMessage `json:"response"`
				} `json:"functionResponse"`
			} `json:"parts"`
		} `json:"contents"`
		Tools []struct {
			FunctionDeclarations []struct {
				Name string `json:"name"`
			} `json:"functionDeclarations"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	var tools []string
	for _, t := range req.Tools {
		for _, f := range t.FunctionDeclarations {
			tools = append(tools, f.Name)
		}
	}
	var user strings.Builder
	var results []toolResult
	for _, c := range req.Contents {
		for _, p := range c.Parts {
			if p.FunctionResponse != nil {
				results = append(results, toolResult{Name: p.FunctionResponse.Name, Text: string(p.FunctionResponse.Response)})
			} else if c.Role == "user" {
				user.WriteString(p.Text + "\n")
			}
		}
	}
	a, _ := m.next("gemini", path, body, user.String(), tools, results)
	var part map[string]any
	finish := "STOP"
	if a.tool != "" {
		part = map[string]any{"functionCall": map[string]any{"name": a.tool, "args": a.args}}
	} else {
		part = map[string]any{"text": a.text}
	}
	resp := map[string]any{
		"candidates":    []any{map[string]any{"content": map[string]any{"role": "model", "parts": []any{part}}, "finishReason": finish, "index": 0}},
		"usageMetadata": map[string]any{"promptTokenCount": 100, "candidatesTokenCount": 20, "totalTokenCount": 120},
		"modelVersion":  "gemini-e2e",
	}
	if !stream {
		writeJSON(w, resp)
		return
	}
	sse := newSSE(w)
	sse.data(resp)
}

// ---- server-sent events ----

type sseWriter struct {
	w  *bufio.Writer
	fl http.Flusher
}

func newSSE(w http.ResponseWriter) *sseWriter {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	fl, _ := w.(http.Flusher)
	return &sseWriter{w: bufio.NewWriter(w), fl: fl}
}

func (s *sseWriter) event(name string, v any) {
	b, _ := json.Marshal(v)
	fmt.Fprintf(s.w, "event: %s\ndata: %s\n\n", name, b)
	s.flush()
}

func (s *sseWriter) data(v any) {
	b, _ := json.Marshal(v)
	fmt.Fprintf(s.w, "data: %s\n\n", b)
	s.flush()
}

func (s *sseWriter) flush() {
	s.w.Flush()
	if s.fl != nil {
		s.fl.Flush()
	}
}

// bodyContains reports whether any request of the step carries s.
func bodyContains(reqs []request, stepIdx int, s string) bool {
	for _, r := range reqs {
		if r.Main && r.Step == stepIdx && bytes.Contains(r.Body, []byte(s)) {
			return true
		}
	}
	return false
}
