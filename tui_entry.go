package main

import (
	"context"

	"github.com/odekmem/odekmem/memcore"
)

// runTUI opens the review TUI. Until the TUI lands, it is nil and the CLI
// prints stats instead.
var runTUI func(ctx context.Context, st *memcore.Store, settings memcore.Settings, title string) error
