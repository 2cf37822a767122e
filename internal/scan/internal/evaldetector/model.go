//go:build !baseline

package main

import (
	"bufio"
	"fmt"
	"os"

	"github.com/odekmem/odekmem/internal/scan"
	"github.com/odekmem/odekmem/internal/scan/internal/fit"
	"github.com/odekmem/odekmem/internal/scan/internal/learned"
)

// scorer reports whether a refitted model blocks a text.
type scorer func(text string) bool

// refit trains a model without the named source.
func refit(root, name string) scorer {
	tr, va, err := fit.Examples(root, func(n string) bool { return n == name })
	must(err)
	m, _, err := fit.Fit(tr, va)
	must(err)
	return func(text string) bool {
		v, d := learned.Input(text)
		return m.Score(v, d) >= m.Threshold()
	}
}

// scoreLines prints, for each line of standard input, the model's
// probability and threshold and the scanner's blocking findings.
func scoreLines() {
	m, err := learned.Model()
	must(err)
	sc := bufio.NewScanner(os.Stdin)
	for sc.Scan() {
		l := sc.Text()
		v, d := learned.Input(l)
		var rules []string
		for _, f := range scan.Scan(l).Findings {
			if f.Severity == scan.Block {
				rules = append(rules, f.Rule)
			}
		}
		fmt.Printf("p=%.3f (≥%.3f) %v %q\n", m.Score(v, d), m.Threshold(), rules, trunc(l, 120))
	}
}
