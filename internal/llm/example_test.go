package llm_test

import (
	"fmt"

	"github.com/odekmem/odekmem/internal/llm"
)

func ExampleResolveAnaphora() {
	refs := []llm.Referent{{Text: "User decided to use PostgreSQL over MySQL", Type: "decision", Score: 0.81}}
	for _, msg := range []string{"Does it support JSONB?", "It works now."} {
		out, changed := llm.ResolveAnaphora(msg, refs, 0.55)
		fmt.Println(changed, out)
	}
	// Output:
	// true Does PostgreSQL support JSONB?
	// false It works now.
}

func ExampleStyleDirective() {
	fmt.Println(llm.StyleDirective(map[string]string{"verbosity": "low", "tone": "direct"}))
	// Output:
	// Style guidance: keep answers brief (verbosity: low); tone: direct.
}

func ExampleParseArray() {
	raw := "Here are the atoms:\n```json\n{\"atoms\":[{\"text\":\"User prefers tabs\",\"type\":\"preference\"}]}\n```\nHope this helps!"
	items, err := llm.ParseArray(raw, 0)
	fmt.Println(len(items), items[0]["text"], err)
	_, err = llm.ParseArray(`[{"text":"a","Text":"b"}]`, 0)
	fmt.Println(err)
	// Output:
	// 1 User prefers tabs <nil>
	// llm: duplicate key in model output: "text" and "Text" (case variants) in one object
}

func ExamplePredictRules() {
	fmt.Println(llm.PredictRules("Refactor the auth package to remove JWT.", 3))
	// Output:
	// [which tests cover the auth package? how should the auth package be structured? what depends on JWT?]
}
