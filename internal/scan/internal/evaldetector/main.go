// Command evaldetector measures the scanner on every source of
// internal/scan/internal/corpus, rules alone and rules with the learned
// detector, in one run, and prints Markdown tables per source and per
// category (BENCHMARKS.md quotes them):
//
//	go run ./internal/scan/internal/evaldetector [-loso] [-misses N]
//
// "Rules" is a block by any finding other than the learned detector's
// (rule "model"): the model only scores text every rule passed, so this is
// exactly the scanner without it. Held-out sources were never trained or
// tuned on. With -loso, each training source is also measured with a model
// refitted without it (leave one source out), the honest figure for a
// source the committed model was trained on.
package main

import (
	"flag"
	"fmt"
	"os"
	"sort"
	"strings"

	"github.com/odekmem/odekmem/internal/scan"
	"github.com/odekmem/odekmem/internal/scan/internal/corpus"
)

type tally struct{ n, rules, both, loso int }

// tsvLines collect the -tsv output.
var tsvLines []string

// readBaseline reads a -tsv file: "source\tcategory\tmeasure" → blocks.
func readBaseline(path string) map[string]int {
	out := map[string]int{}
	if path == "" {
		return out
	}
	b, err := os.ReadFile(path)
	must(err)
	for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		f := strings.Split(l, "\t")
		if len(f) != 4 {
			continue
		}
		var n int
		fmt.Sscan(f[3], &n)
		out[f[0]+"\t"+f[1]+"\t"+f[2]] = n
	}
	return out
}

func (t *tally) add(rules, both, loso bool) {
	t.n++
	if rules {
		t.rules++
	}
	if both {
		t.both++
	}
	if loso {
		t.loso++
	}
}

func pct(k, n int) string {
	if n == 0 {
		return "–"
	}
	return fmt.Sprintf("%d/%d = %.1f%%", k, n, 100*float64(k)/float64(n))
}

func main() {
	root := flag.String("root", ".", "repository root")
	loso := flag.Bool("loso", false, "refit without each training source and measure it with that model")
	misses := flag.Int("misses", 0, "print up to N missed attacks and false blocks per source")
	only := flag.String("source", "", "measure only this source")
	ruleCounts := flag.Bool("rules", false, "print, per source, how often each rule blocked (standard error)")
	tsv := flag.String("tsv", "", "also write source, category, cases and blocks (rules + model) to this file, for -baseline")
	baseline := flag.String("baseline", "", "a -tsv file written by another build of the scanner: shown as the before column")
	text := flag.Bool("text", false, "score each line of standard input instead: model probability and findings")
	flag.Parse()
	if *text {
		scoreLines()
		return
	}

	type catKey struct{ source, cat string }
	cats := map[catKey]*tally{}
	before := readBaseline(*baseline)
	fmt.Println("| source | role | kind | measure | before | rules | rules + model | rules + model refitted without the source |")
	fmt.Println("|---|---|---|---|---|---|---|---|")
	for _, s := range corpus.Sources() {
		if *only != "" && s.Name != *only {
			continue
		}
		samples, err := s.Load(*root)
		must(err)
		var lm scorer
		if *loso && s.Role == corpus.Train {
			lm = refit(*root, s.Name)
		}
		var atk, ben tally
		var missed []string
		byRule := map[string]int{}
		for _, x := range samples {
			if *ruleCounts {
				for _, f := range scan.Scan(x.Text).Findings {
					if f.Severity == scan.Block {
						byRule[fmt.Sprintf("%s/%v", f.Rule, x.Attack)]++
						break
					}
				}
			}
			rules, both := verdict(x)
			l := false
			if lm != nil {
				l = rules || lm(x.Text)
			}
			t := &ben
			if x.Attack {
				t = &atk
			}
			t.add(rules, both, l)
			k := catKey{s.Name, x.Category}
			if cats[k] == nil {
				cats[k] = &tally{}
			}
			if x.Attack {
				cats[k].add(rules, both, l)
			} else {
				cats[k].add(rules, both, l)
			}
			if x.Attack != both && len(missed) < *misses {
				what := "missed"
				if both {
					what = "blocked"
				}
				missed = append(missed, fmt.Sprintf("  %s [%s] %q", what, x.Category, trunc(x.Text, 200)))
			}
		}
		for _, r := range []struct {
			t       *tally
			measure string
		}{{&atk, "detected"}, {&ben, "false blocks"}} {
			if r.t.n == 0 {
				continue
			}
			l := "–"
			if lm != nil {
				l = pct(r.t.loso, r.t.n)
			}
			b := "–"
			if k, ok := before[s.Name+"\t*\t"+r.measure]; ok {
				b = pct(k, r.t.n)
			}
			fmt.Printf("| %s | %s | %s | %s | %s | %s | %s | %s |\n", s.Name, s.Role, s.Kind, r.measure, b, pct(r.t.rules, r.t.n), pct(r.t.both, r.t.n), l)
			tsvLines = append(tsvLines, fmt.Sprintf("%s\t*\t%s\t%d", s.Name, r.measure, r.t.both))
		}
		for _, m := range missed {
			fmt.Fprintln(os.Stderr, s.Name+":", m)
		}
		if len(byRule) > 0 {
			fmt.Fprintln(os.Stderr, s.Name, "first blocking rule/attack:", byRule)
		}
	}
	fmt.Println()
	fmt.Println("| source | category | cases | before | rules | rules + model | refitted without the source |")
	fmt.Println("|---|---|---|---|---|---|---|")
	keys := make([]catKey, 0, len(cats))
	for k := range cats {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if keys[i].source != keys[j].source {
			return keys[i].source < keys[j].source
		}
		return keys[i].cat < keys[j].cat
	})
	for _, k := range keys {
		t := cats[k]
		if !isCategorised(k.source) {
			continue
		}
		l := "–"
		if *loso && roleOf(k.source) == corpus.Train {
			l = pct(t.loso, t.n)
		}
		b := "–"
		if n, ok := before[k.source+"\t"+k.cat+"\tdetected"]; ok {
			b = pct(n, t.n)
		}
		fmt.Printf("| %s | %s | %d | %s | %s | %s | %s |\n", k.source, k.cat, t.n, b, pct(t.rules, t.n), pct(t.both, t.n), l)
	}
	for k, t := range cats {
		tsvLines = append(tsvLines, fmt.Sprintf("%s\t%s\tdetected\t%d", k.source, k.cat, t.both))
	}
	if *tsv != "" {
		sort.Strings(tsvLines)
		must(os.WriteFile(*tsv, []byte(strings.Join(tsvLines, "\n")+"\n"), 0o644))
	}
}

// roleOf returns a source's role.
func roleOf(name string) corpus.Role {
	for _, s := range corpus.Sources() {
		if s.Name == name {
			return s.Role
		}
	}
	return corpus.HeldOut
}

// isCategorised: the per-category table covers attack and mixed sources.
func isCategorised(name string) bool {
	for _, s := range corpus.Sources() {
		if s.Name == name {
			return s.Kind != "benign"
		}
	}
	return false
}

// verdict scans a sample: blocked by the rules alone, and by rules and
// model. A split attack counts when an atom blocks alone or the block-level
// scan finds it.
func verdict(x corpus.Sample) (rules, both bool) {
	texts := []string{x.Text}
	if len(x.Atoms) > 0 {
		texts = x.Atoms
	}
	for _, t := range texts {
		r, b := blocks(scan.Scan(t).Findings)
		rules, both = rules || r, both || b
	}
	if len(x.Atoms) > 0 && !both && len(scan.Across(x.Atoms)) > 0 {
		rules, both = true, true
	}
	return rules, both
}

func blocks(fs []scan.Finding) (rules, both bool) {
	for _, f := range fs {
		if f.Severity != scan.Block {
			continue
		}
		both = true
		if f.Rule != "model" {
			rules = true
		}
	}
	return rules, both
}

func trunc(s string, n int) string {
	s = strings.ReplaceAll(s, "\n", " ")
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
}

func must(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "evaldetector:", err)
		os.Exit(1)
	}
}
