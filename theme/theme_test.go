package theme

import (
	"reflect"
	"testing"

	"github.com/charmbracelet/lipgloss"
)

// TestEveryColourAdapts checks each colour has a light and a dark variant.
func TestEveryColourAdapts(t *testing.T) {
	v := reflect.ValueOf(Default())
	for i := 0; i < v.NumField(); i++ {
		c := v.Field(i).Interface().(lipgloss.AdaptiveColor)
		if c.Light == "" || c.Dark == "" || c.Light == c.Dark {
			t.Errorf("%s: %+v", v.Type().Field(i).Name, c)
		}
	}
}

func TestNewStyles(t *testing.T) {
	s := NewStyles(Default())
	if s.EdgeStyle("temporal").GetForeground() == s.EdgeStyle("semantic").GetForeground() {
		t.Error("edge kinds share a colour")
	}
	if got := s.EdgeStyle("nope").Render("x"); got == "" {
		t.Error("unknown edge kind renders nothing")
	}
}
