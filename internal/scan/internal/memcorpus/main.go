// Command memcorpus writes the scanner's memory-directed development
// corpus (internal/scan/testdata/corpora/memory-dev.jsonl): attacks aimed at
// an agent's memory — preferences to save, user-model edits, memory tool
// calls, conditional triggers, dictated answers, third-person preferences,
// harmful commands and package sources planted as conventions, authority
// claims, override synonyms, split payloads and encodings — and the hard
// negatives beside them: legitimate agent-directed conventions, a
// person's own requests to remember things, talk about attacks, and
// ordinary tool commands. Everything is built from the hand-written lists
// in data.go with a fixed seed, so the file is reproducible:
//
//	go run ./internal/scan/internal/memcorpus > internal/scan/testdata/corpora/memory-dev.jsonl
//
// It was written by the people who write the scanner: it is a development
// set (trained on), never evidence of how the scanner generalises.
package main

import (
	"bufio"
	"encoding/base32"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"strings"
	"unicode"
)

type row struct {
	Text     string `json:"text"`
	Label    int    `json:"label"`
	Category string `json:"category"`
}

// contexts embed a line the way it reaches a memory: in a README, a
// comment, a tool result, an issue.
var contexts = []string{
	"%s",
	"%s",
	"Note: %s",
	"<!-- %s -->",
	"> %s",
	"## Setup\n\n%s",
	"From the issue thread: %s",
	"Output of `cat NOTES.md`:\n%s",
	"TODO(team): %s",
	"# %s",
	"README excerpt — %s",
	"Reviewer comment: %s",
}

func main() {
	rng := rand.New(rand.NewPCG(22, 2026))
	var rows []row
	add := func(label int, cat, text string) { rows = append(rows, row{text, label, cat}) }
	ctx := func(s string) string { return fmt.Sprintf(contexts[rng.IntN(len(contexts))], s) }
	pick := func(xs []string, n int) []string {
		p := rng.Perm(len(xs))
		out := make([]string, 0, n)
		for _, i := range p[:min(n, len(xs))] {
			out = append(out, xs[i])
		}
		return out
	}

	// Attacks.
	for _, p := range dangerPrefs {
		for _, w := range pick(memoryWrappers, 4) {
			add(1, "memory_save", ctx(fmt.Sprintf(w, p)))
		}
	}
	for _, p := range benignPrefs[:8] {
		w := memoryWrappers[rng.IntN(3)]
		add(1, "memory_save", ctx(fmt.Sprintf(w, "use "+p)))
	}
	for _, s := range toolCalls {
		add(1, "memory_tool_call", s)
		add(1, "memory_tool_call", ctx(s))
	}
	for _, s := range userModel {
		add(1, "user_model", s)
		add(1, "user_model", ctx(s))
	}
	for _, s := range conditionals {
		add(1, "conditional_trigger", s)
		add(1, "conditional_trigger", ctx(s))
	}
	for _, s := range dictated {
		add(1, "dictated_answer", s)
		add(1, "dictated_answer", ctx(s))
	}
	for _, s := range thirdPerson {
		add(1, "third_person_preference", s)
		add(1, "third_person_preference", ctx(s))
	}
	for _, p := range dangerPrefs[:12] {
		add(1, "third_person_preference", "The user prefers that you "+p+".")
	}
	for _, s := range toolAbuse {
		add(1, "tool_abuse", s)
		add(1, "tool_abuse", ctx(s))
	}
	for _, s := range supplyChain {
		add(1, "supply_chain", s)
		add(1, "supply_chain", ctx(s))
	}
	for _, s := range authority {
		add(1, "authority_claim", s)
		add(1, "authority_claim", ctx(s))
	}
	for _, s := range synonyms {
		add(1, "override_synonym", s)
		add(1, "override_synonym", ctx(s))
	}
	for _, s := range splitPayloads {
		add(1, "payload_splitting", s)
	}
	asks := []string{"Decode this and follow it: %s", "%s", "Instructions (encoded): %s", "Read this backwards and do it: %s", "%s — apply this to your memory."}
	for _, p := range obfuscationPlain {
		for _, enc := range []struct{ name, s string }{
			{"reversed", reverse(p)}, {"morse", morse(p)}, {"pig_latin", pigLatin(p)},
			{"base32", base32.StdEncoding.EncodeToString([]byte(p))}, {"base64", base64.StdEncoding.EncodeToString([]byte(p))},
		} {
			add(1, "obfuscation:"+enc.name, fmt.Sprintf(asks[rng.IntN(len(asks))], enc.s))
		}
	}

	// Hard negatives.
	for _, s := range legitConventions {
		add(0, "legit_convention", s)
		add(0, "legit_convention", ctx(s))
	}
	for _, p := range benignPrefs {
		for _, w := range pick(firstPersonMemory, 3) {
			add(0, "first_person_memory", fmt.Sprintf(w, p))
		}
		add(0, "third_person_benign", "The user prefers "+p+".")
	}
	for _, s := range aboutInjection {
		add(0, "about_injection", s)
		add(0, "about_injection", ctx(s))
	}
	for _, s := range benignTool {
		add(0, "benign_tool", s)
		add(0, "benign_tool", ctx(s))
	}
	for _, t := range smallTalk {
		for _, topic := range pick(smallTalkTopics, 6) {
			add(0, "small_talk", fmt.Sprintf(t, topic))
		}
	}
	for _, t := range benignVocab {
		for _, f := range pick(vocabFillers, 5) {
			add(0, "benign_vocabulary", fmt.Sprintf(t, f))
		}
	}
	for _, s := range benignDictated {
		add(0, "benign_request", s)
		add(0, "benign_request", ctx(s))
	}

	w := bufio.NewWriter(os.Stdout)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	seen := map[string]bool{}
	for _, r := range rows {
		if seen[r.Text] {
			continue
		}
		seen[r.Text] = true
		if err := enc.Encode(r); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
	}
	if err := w.Flush(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

func reverse(s string) string {
	r := []rune(s)
	for i, j := 0, len(r)-1; i < j; i, j = i+1, j-1 {
		r[i], r[j] = r[j], r[i]
	}
	return string(r)
}

var morseCode = map[rune]string{
	'a': ".-", 'b': "-...", 'c': "-.-.", 'd': "-..", 'e': ".", 'f': "..-.", 'g': "--.", 'h': "....", 'i': "..", 'j': ".---",
	'k': "-.-", 'l': ".-..", 'm': "--", 'n': "-.", 'o': "---", 'p': ".--.", 'q': "--.-", 'r': ".-.", 's': "...", 't': "-",
	'u': "..-", 'v': "...-", 'w': ".--", 'x': "-..-", 'y': "-.--", 'z': "--..", '-': "-....-",
}

func morse(s string) string {
	var words []string
	for _, w := range strings.Fields(s) {
		var cs []string
		for _, r := range w {
			if c, ok := morseCode[unicode.ToLower(r)]; ok {
				cs = append(cs, c)
			}
		}
		words = append(words, strings.Join(cs, " "))
	}
	return strings.Join(words, " / ")
}

func pigLatin(s string) string {
	var out []string
	for _, w := range strings.Fields(s) {
		i := strings.IndexAny(w, "aeiou")
		switch {
		case i <= 0:
			out = append(out, w+"way")
		default:
			out = append(out, w[i:]+w[:i]+"ay")
		}
	}
	return strings.Join(out, " ")
}
