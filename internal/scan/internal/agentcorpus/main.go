// Command agentcorpus writes the scanner's second development corpus
// (internal/scan/testdata/corpora/agent-dev.jsonl): attacks on an agent
// and its memory written as many different people would write them —
// memory-directed instructions, conditional triggers, dictated answers,
// third-person preferences, destructive commands presented as steps,
// supply-chain redirection, authority claims, payload splitting,
// obfuscation, exfiltration, classic overrides and role play — in the
// places they arrive (an e-mail, a web page, a code comment, YAML, an
// issue thread, a README, tool output, a log line), and hard negatives in
// the same places: legitimate conventions addressed to agents,
// documentation and tool output full of imperative sentences, a person's
// own (even risky) practices in their own voice, security
// discussions that quote attacks, a person's own requests, ordinary
// developer requests and chat.
//
// Sentences are composed from the hand-written lists in data.go (many
// phrasings per category, several payloads, several places) with a fixed
// seed, so the file is reproducible:
//
//	go run ./internal/scan/internal/agentcorpus > internal/scan/testdata/corpora/agent-dev.jsonl
//
// It was written by the people who work on the scanner, without looking at
// any held-out set: a development set (trained on), never evidence of how
// the scanner generalises.
package main

import (
	"bufio"
	"encoding/base32"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"strings"
)

type row struct {
	Text     string `json:"text"`
	Label    int    `json:"label"`
	Category string `json:"category"`
}

func main() {
	rng := rand.New(rand.NewPCG(22, 4242))
	var rows []row
	seen := map[string]bool{}
	add := func(label int, cat, text string) {
		if seen[text] {
			return
		}
		seen[text] = true
		rows = append(rows, row{text, label, cat})
	}
	one := func(xs []string) string { return xs[rng.IntN(len(xs))] }
	// fill replaces the {slot}s of a template with random fillers.
	// Braces that do not name a slot (JSON) are left alone.
	fill := func(t string) string {
		from := 0
		for {
			i := strings.Index(t[from:], "{")
			if i < 0 {
				return t
			}
			i += from
			j := strings.IndexAny(t[i+1:], "{}")
			if j < 0 {
				return t
			}
			j += i + 1
			xs, ok := slots[t[i+1:j]]
			if !ok || t[j] != '}' {
				from = i + 1
				continue
			}
			v := one(xs)
			t = t[:i] + v + t[j+1:]
			from = i + len(v)
		}
	}
	place := func(s string) string {
		if rng.IntN(3) == 0 {
			return s
		}
		return strings.Replace(fill(one(places)), "%s", s, 1)
	}

	for _, c := range attackCats {
		for _, t := range c.templates {
			for k := 0; k < c.per; k++ {
				add(1, c.name, place(fill(t)))
			}
		}
	}
	// Obfuscated attacks: the plain sentence encoded, with an ask.
	for _, t := range attackCats[0].templates[:6] {
		for _, enc := range []struct {
			name string
			f    func(string) string
		}{{"reversed", reverse}, {"morse", morse}, {"pig_latin", pigLatin}, {"leetspeak", leet},
			{"base32", func(s string) string { return base32.StdEncoding.EncodeToString([]byte(s)) }}} {
			p := fill(t)
			add(1, "obfuscation:"+enc.name, fmt.Sprintf(one(encodedAsks), enc.f(p)))
		}
	}
	// Split payloads.
	for k := 0; k < 40; k++ {
		add(1, "payload_splitting", fill(one(splitTemplates)))
	}

	for _, c := range benignCats {
		for _, t := range c.templates {
			for k := 0; k < c.per; k++ {
				add(0, c.name, place(fill(t)))
			}
		}
	}

	w := bufio.NewWriter(os.Stdout)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	for _, r := range rows {
		if err := enc.Encode(r); err != nil {
			panic(err)
		}
	}
	if err := w.Flush(); err != nil {
		panic(err)
	}
}

func reverse(s string) string {
	r := []rune(s)
	for i, j := 0, len(r)-1; i < j; i, j = i+1, j-1 {
		r[i], r[j] = r[j], r[i]
	}
	return string(r)
}

var morseTable = map[rune]string{'a': ".-", 'b': "-...", 'c': "-.-.", 'd': "-..", 'e': ".", 'f': "..-.", 'g': "--.", 'h': "....", 'i': "..", 'j': ".---",
	'k': "-.-", 'l': ".-..", 'm': "--", 'n': "-.", 'o': "---", 'p': ".--.", 'q': "--.-", 'r': ".-.", 's': "...", 't': "-", 'u': "..-", 'v': "...-",
	'w': ".--", 'x': "-..-", 'y': "-.--", 'z': "--..", '0': "-----", '1': ".----", '2': "..---", '3': "...--", '4': "....-", '5': ".....",
	'6': "-....", '7': "--...", '8': "---..", '9': "----."}

func morse(s string) string {
	var words []string
	for _, w := range strings.Fields(strings.ToLower(s)) {
		var ls []string
		for _, r := range w {
			if m, ok := morseTable[r]; ok {
				ls = append(ls, m)
			}
		}
		if len(ls) > 0 {
			words = append(words, strings.Join(ls, " "))
		}
	}
	return strings.Join(words, " / ")
}

func pigLatin(s string) string {
	var out []string
	for _, w := range strings.Fields(s) {
		lw := strings.ToLower(strings.Trim(w, ".,:;!?'\""))
		if lw == "" {
			continue
		}
		i := strings.IndexAny(lw, "aeiou")
		switch {
		case i == 0:
			out = append(out, lw+"way")
		case i > 0:
			out = append(out, lw[i:]+lw[:i]+"ay")
		default:
			out = append(out, lw+"ay")
		}
	}
	return strings.Join(out, " ")
}

func leet(s string) string {
	return strings.NewReplacer("a", "4", "e", "3", "i", "1", "o", "0", "s", "5", "t", "7").Replace(strings.ToLower(s))
}
