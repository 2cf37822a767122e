// Command evalscan measures the scanner on every evaluation corpus and
// prints one Markdown table row per corpus: detection (attack corpora) or
// false blocks (benign corpora) with counts, and p50/p99 latency of one
// Scan call (thread CPU time on Linux, wall time elsewhere). BENCHMARKS.md quotes it; scripts/scan-eval.sh runs it against
// the current scanner and against a baseline commit in one run.
//
//	go run ./memcore/scan/internal/evalscan -label after
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"time"

	"github.com/odekmem/odekmem/internal/scan"
	"github.com/odekmem/odekmem/internal/scan/internal/corpus"
	"github.com/odekmem/odekmem/internal/testcreds"
)

func main() {
	root := flag.String("root", ".", "repository root")
	label := flag.String("label", "after", "label for the rows")
	flag.Parse()
	data := filepath.Join(*root, "testdata", "data")
	sd := filepath.Join(*root, "memcore", "scan", "testdata")

	type row struct {
		corpus, measure string
		n, hit          int
		lat             []time.Duration
	}
	var rows []row
	runtime.LockOSThread()
	// timed returns thread CPU time where the OS provides it (Linux), else
	// wall time.
	timed := func(s string) (bool, time.Duration) {
		c0, ok := threadCPU()
		t0 := time.Now()
		b := scan.Scan(s).Blocked()
		if c1, ok2 := threadCPU(); ok && ok2 {
			return b, c1 - c0
		}
		return b, time.Since(t0)
	}
	run := func(corpus, measure string, texts []string) {
		r := row{corpus: corpus, measure: measure}
		for _, t := range texts {
			b, d := timed(t)
			r.n++
			if b {
				r.hit++
			}
			r.lat = append(r.lat, d)
		}
		rows = append(rows, r)
	}

	var cse []struct {
		UserInput string `json:"user_input"`
	}
	must(json.Unmarshal(read(filepath.Join(data, "injection", "cyberseceval-prompt-injection.json")), &cse))
	var texts []string
	for _, c := range cse {
		texts = append(texts, c.UserInput)
	}
	run("CyberSecEval prompt injection", "detected", texts)

	// held-out: split cases count when an atom blocks alone or the
	// block-level scan finds them (acrossBlocked; false in the baseline)
	ho := row{corpus: "held-out attacks (never tuned on)", measure: "detected"}
	for _, line := range lines(filepath.Join(sd, "heldout", "attacks.jsonl")) {
		var c struct {
			Kind  string
			Text  string
			Atoms []string
		}
		must(json.Unmarshal([]byte(line), &c))
		ho.n++
		if c.Kind != "split" {
			b, d := timed(c.Text)
			ho.lat = append(ho.lat, d)
			if b {
				ho.hit++
			}
			continue
		}
		hit := false
		for _, a := range c.Atoms {
			b, d := timed(a)
			ho.lat = append(ho.lat, d)
			hit = hit || b
		}
		if hit || acrossBlocked(c.Atoms) {
			ho.hit++
		}
	}
	rows = append(rows, ho)

	run("developer statements", "false blocks", append(lines(filepath.Join(sd, "developer", "handwritten.txt")), lines(filepath.Join(sd, "developer", "generated.txt"))...))
	run("chat turns (conversation-turns)", "false blocks", lines(filepath.Join(data, "benign", "conversation-turns.txt")))
	run("persona statements", "false blocks", lines(filepath.Join(data, "benign", "persona-statements.txt")))

	// secrets: every synthetic credential x plain / zero-width split /
	// fullwidth, in prose; redacted means no 8-character piece survives
	sr := row{corpus: "secret kinds x plain/zero-width/fullwidth", measure: "fully redacted"}
	for _, c := range testcreds.Creds(1) {
		for _, v := range testcreds.Variants(c) {
			in := "FYI the " + c.Label + " is " + v.Text + " so keep it handy."
			c0, _ := threadCPU()
			red, _ := scan.Redact(in)
			c1, _ := threadCPU()
			sr.lat = append(sr.lat, c1-c0)
			sr.n++
			if testcreds.Leaks(red, v.Secret) == "" {
				sr.hit++
			}
		}
	}
	rows = append(rows, sr)

	for _, r := range rows {
		sort.Slice(r.lat, func(i, j int) bool { return r.lat[i] < r.lat[j] })
		p := func(q int) string {
			return fmt.Sprintf("%.0f", float64(r.lat[min(len(r.lat)-1, len(r.lat)*q/100)].Nanoseconds())/1e3)
		}
		fmt.Printf("| %s | %s | %s | %d/%d = %.1f%% | %s | %s |\n", r.corpus, *label, r.measure, r.hit, r.n, 100*float64(r.hit)/float64(r.n), p(50), p(99))
	}
}

func read(p string) []byte {
	b, err := os.ReadFile(p)
	must(err)
	return b
}

func lines(p string) []string {
	out, err := corpus.Lines(p)
	must(err)
	return out
}

func must(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "evalscan:", err)
		os.Exit(1)
	}
}
