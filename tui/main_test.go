package tui

import (
	"os"
	"testing"

	"github.com/odekmem/odekmem/internal/testkit"
)

func TestMain(m *testing.M) {
	testkit.PlainTerminal()
	code := m.Run()
	cleanupBench()
	os.Exit(code)
}
