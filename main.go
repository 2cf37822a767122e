// Command odekmem shows and curates what a coding agent remembers: a review
// TUI with no arguments, a scriptable CLI with a verb. See README.md.
package main

import (
	"embed"
	"io/fs"
	"os"

	"golang.org/x/term"

	"github.com/odekmem/odekmem/internal/cli"
	"github.com/odekmem/odekmem/internal/procstart"
)

//go:embed all:testdata/demo
var demoFiles embed.FS

//go:embed testdata/aged/aged.json
var agedFixture []byte

func main() {
	// Most verbs open the store, answer and exit: no collection until the
	// heap is large (serve, the MCP server, the TUI and bulk jobs turn it
	// back on).
	procstart.DeferGC(procstart.DeferLimit)
	demo, err := fs.Sub(demoFiles, "testdata/demo")
	if err != nil {
		panic(err)
	}
	width := 0
	if w, _, err := term.GetSize(int(os.Stdout.Fd())); err == nil {
		width = w
	}
	os.Exit(cli.Main(os.Args[1:], cli.Env{
		Width:            width,
		Demo:             demo,
		AgedFixture:      agedFixture,
		StderrIsTerminal: term.IsTerminal(int(os.Stderr.Fd())),
		RunTUI:           runTUI,
		RunTUIError:      runTUIError,
	}))
}
