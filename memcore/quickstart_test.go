package memcore_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/odekmem/odekmem/memcore"
)

// Example_quickStart is the README's quick start, compiled and run; the
// lines between the "quick start" markers are what the README shows
// (TestReadmeQuickStartIsTheExample keeps the two identical).
func Example_quickStart() {
	home, err := os.MkdirTemp("", "odekmem-quickstart-")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(home)
	dir := filepath.Join(home, "memory", "extended")

	// quick start: begin
	ctx := context.Background()
	cfg := memcore.Config{SemanticSearchTopK: 8} // every field left out is its default
	// Optional: a memory LLM and an embedder. Without them memcore uses
	// its offline judgement and its offline hash embedder; package
	// memcore/openai has both for any OpenAI-compatible endpoint (Ollama here):
	//   chat, err := openai.NewChat(openai.ChatConfig{BaseURL: "http://localhost:11434/v1", Model: "qwen2.5:7b"})
	//   emb, err := openai.NewEmbedder(openai.EmbedderConfig{BaseURL: "http://localhost:11434/v1", Model: "nomic-embed-text"})
	//   … memcore.Options{Config: &cfg, LLM: chat, Embedder: emb}
	st, err := memcore.Open(ctx, dir, memcore.Options{Config: &cfg})
	if err != nil {
		log.Fatal(err)
	}
	defer st.Close(ctx)
	hook := memcore.NewHook(st)
	defer hook.Close(ctx) // deferred last, runs first: the Hook closes before its Store

	turn := memcore.Turn{Message: "We decided to use PostgreSQL for the ledger.", SessionID: "s1", Project: "/src/payments-api"}
	// Before calling the main model: inject tc.Blocks into the system
	// prompt and send tc.Message (pronoun resolved) as the user message.
	tc := hook.BeforeTurn(ctx, turn)
	// Then record what the person said (extraction, approvals, links).
	rr, err := hook.RecordUserMessage(ctx, turn)
	if err != nil {
		log.Fatal(err)
	}
	for _, a := range rr.Added { // the atoms extraction stored (none when nothing was worth keeping)
		fmt.Println("stored:", a.Atom.Type, a.Atom.SourceClass)
	}
	fmt.Println("blocks before this turn:", len(tc.Blocks))

	// The agent's memory tool: its schema is data (memcore.MemoryToolSpec(),
	// a JSON Schema; json.Marshal of it is the OpenAI function object).
	// CallJSON takes the model's arguments; provenance comes from the turn.
	tool := memcore.NewTool(st) // one per agent process: it remembers what it proposed per session
	out := tool.CallJSON(ctx, []byte(`{"action":"search_atoms","query":"which database for the ledger"}`), turn)
	var res struct {
		OK bool `json:"ok"`
	}
	json.Unmarshal(out, &res)
	fmt.Println("tool ok:", res.OK)

	// A later turn recalls it.
	next := hook.BeforeTurn(ctx, memcore.Turn{Message: "which database does the ledger use?", SessionID: "s1", Project: "payments-api"})
	for _, a := range next.Memory.Atoms {
		fmt.Println("recalled:", a.Atom.Type, a.Atom.Text)
	}
	// quick start: end

	// Output:
	// stored: decision user_said
	// blocks before this turn: 0
	// tool ok: true
	// recalled: decision We decided to use PostgreSQL for the ledger.
}

// TestReadmeQuickStartIsTheExample checks that the README's quick start is
// the code Example_quickStart compiles and runs.
func TestReadmeQuickStartIsTheExample(t *testing.T) {
	readme, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	src, err := os.ReadFile("quickstart_test.go")
	if err != nil {
		t.Fatal(err)
	}
	between := func(s, from, to string) string {
		_, after, ok := strings.Cut(s, from)
		body, _, ok2 := strings.Cut(after, to)
		if !ok || !ok2 {
			t.Fatalf("markers %q … %q not found", from, to)
		}
		var lines []string
		for _, l := range strings.Split(strings.TrimSpace(body), "\n") {
			lines = append(lines, strings.TrimSpace(l))
		}
		return strings.Join(lines, "\n")
	}
	example := between(string(src), "// quick start: begin", "// quick start: end")
	doc := between(string(readme), "<!-- quick start: begin -->\n```go", "```\n<!-- quick start: end -->")
	if example != doc {
		t.Fatalf("README quick start differs from Example_quickStart:\nREADME:\n%s\n\nexample:\n%s", doc, example)
	}
}
