// Command train fits the scanner's learned injection detector on the
// training sources of internal/scan/internal/corpus and writes the model
// file the scanner embeds (internal/scan/internal/learned/injection.tclf).
// The same data and code give the same bytes; -check verifies that the
// committed file is what the committed data produce.
//
//	go run ./internal/scan/internal/train          # or: make train-scanner
//	go run ./internal/scan/internal/train -check
package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"

	_ "github.com/odekmem/odekmem/internal/scan" // sets learned.Input
	"github.com/odekmem/odekmem/internal/scan/internal/fit"
	"github.com/odekmem/odekmem/internal/scan/internal/learned"
)

func main() {
	root := flag.String("root", ".", "repository root")
	check := flag.Bool("check", false, "do not write: fail unless the committed model is what training produces")
	flag.Parse()

	train, valid, err := fit.Examples(*root, nil)
	must(err)
	m, rep, err := fit.Fit(train, valid)
	must(err)
	b, err := m.MarshalBinary()
	must(err)
	info := m.Info()
	fmt.Fprintf(os.Stderr, "train: %v\n", rep)
	fmt.Fprintf(os.Stderr, "train: threshold %.4f, %d non-zero weights, %d bytes, data %x\n", m.Threshold(), info.NonZero, len(b), info.DataHash[:8])
	path := filepath.Join(*root, learned.ModelFile)
	if *check {
		old, err := os.ReadFile(path)
		must(err)
		if !bytes.Equal(old, b) {
			must(fmt.Errorf("%s differs from a fresh training run (%d vs %d bytes): retrain and commit it", path, len(old), len(b)))
		}
		fmt.Fprintln(os.Stderr, "train: committed model is reproduced byte for byte")
		return
	}
	must(os.WriteFile(path, b, 0o644))
}

func must(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "train:", err)
		os.Exit(1)
	}
}
