package main

import (
	"github.com/odekmem/odekmem/tui"
)

// runTUI opens the review TUI on an open store; the CLI calls it for
// `odekmem` and `odekmem demo` (title "demo").
var runTUI = tui.Run
