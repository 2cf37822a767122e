package main

import (
	"context"
	"os"

	"golang.org/x/term"

	"github.com/odekmem/odekmem/tui"
)

// runTUI opens the review TUI on an open store; the CLI calls it for
// `odekmem` and `odekmem demo` (title "demo").
var runTUI = tui.Run

// runTUIError shows a full-screen error when the store cannot be opened,
// on a terminal only; elsewhere the CLI's message on stderr is enough.
func runTUIError(ctx context.Context, err error) error {
	if !term.IsTerminal(int(os.Stdout.Fd())) {
		return nil
	}
	return tui.RunError(ctx, err)
}
