package views

import (
	"os"
	"testing"

	"github.com/odekmem/odekmem/internal/testkit"
)

func TestMain(m *testing.M) {
	testkit.PlainTerminal()
	os.Exit(m.Run())
}
