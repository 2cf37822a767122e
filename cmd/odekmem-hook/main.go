// Command odekmem-hook is the per-prompt agent hook without the review
// TUI linked in: `odekmem-hook claude-code` behaves exactly like
// `odekmem hook claude-code`, and `odekmem-hook serve` like `odekmem
// serve`. It exists for speed only: the full odekmem binary spends tens of
// milliseconds (over 100 on a loaded machine) in package initialisation of
// its terminal-rendering dependencies before main runs, on every prompt.
// `odekmem setup` uses it when it is installed next to odekmem.
package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"time"

	"github.com/odekmem/odekmem/internal/agenthook"
	"github.com/odekmem/odekmem/internal/serve"
	"github.com/odekmem/odekmem/memcore"
)

func main() {
	args := os.Args[1:]
	if len(args) > 0 && args[0] == "serve" {
		os.Exit(serveMain(args[1:]))
	}
	os.Exit(agenthook.Run(args, os.Stdin, os.Stdout, os.Stderr, nil))
}

func serveMain(args []string) int {
	var home string
	idle := serve.DefaultIdle()
	for i := 0; i < len(args); i++ {
		name, val, has := strings.Cut(strings.TrimLeft(args[i], "-"), "=")
		if !has && i+1 < len(args) {
			i++
			val = args[i]
		}
		switch name {
		case "home":
			home = val
		case "idle":
			d, err := time.ParseDuration(val)
			if err != nil || d <= 0 {
				fmt.Fprintf(os.Stderr, "odekmem-hook serve: --idle %q: expected a duration\n", val)
				return 2
			}
			idle = d
		default:
			fmt.Fprintf(os.Stderr, "odekmem-hook serve: unknown flag %s\n", args[i])
			return 2
		}
	}
	s, err := memcore.LoadSettings(memcore.LoadOptions{Home: home})
	if err != nil {
		fmt.Fprintf(os.Stderr, "odekmem-hook serve: %v\n", err)
		return 1
	}
	ctx, cancel := signal.NotifyContext(context.Background(), os.Interrupt)
	defer cancel()
	if err := serve.Run(ctx, s, serve.Options{Idle: idle}); err != nil && !errors.Is(err, serve.ErrRunning) {
		fmt.Fprintf(os.Stderr, "odekmem-hook serve: %v\n", err)
		return 1
	}
	return 0
}
