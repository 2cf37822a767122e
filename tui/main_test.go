package tui

import (
	"os"
	"testing"

	"github.com/charmbracelet/lipgloss"
	"github.com/muesli/termenv"
)

func TestMain(m *testing.M) {
	// Goldens and output assertions are in the ASCII profile: no colour,
	// so any escape sequence in a View would come from data.
	lipgloss.SetColorProfile(termenv.Ascii)
	lipgloss.SetHasDarkBackground(true)
	code := m.Run()
	cleanupBench()
	os.Exit(code)
}
