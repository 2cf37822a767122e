package memcore_test

import (
	"errors"
	"testing"

	"github.com/odekmem/odekmem/internal/umfield"
	"github.com/odekmem/odekmem/memcore"
)

// TestUserModelApplyGetEveryField: each field keeps what is applied to it
// and nothing else; list fields append unique items (case-insensitively);
// a blocker of "none" clears it; old spellings reach the same field.
func TestUserModelApplyGetEveryField(t *testing.T) {
	for _, f := range umfield.Fields {
		var m memcore.UserModel
		if err := memcore.ApplyField(&m, f, " first "); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		if got, ok := m.Get(f); !ok || got != "first" {
			t.Errorf("%s = %q, %v after Apply", f, got, ok)
		}
		if vals := m.Values(); len(vals) != 1 || vals[0] != [2]string{f, "first"} {
			t.Errorf("%s: Values = %v, want only this field", f, vals)
		}
		_ = memcore.ApplyField(&m, f, "First, second")
		want := "First, second"
		if umfield.IsList(f) {
			want = "first, second"
		}
		if got, _ := m.Get(f); got != want {
			t.Errorf("%s = %q after second Apply, want %q", f, got, want)
		}
	}
	var m memcore.UserModel
	_ = memcore.ApplyField(&m, "current_focus.blocker", "flaky CI")
	if got, _ := m.Get("focus.blocker"); got != "flaky CI" || m.Focus.Blocker == nil {
		t.Fatalf("blocker = %q", got)
	}
	_ = memcore.ApplyField(&m, "Focus.Blocker", "none")
	if m.Focus.Blocker != nil {
		t.Errorf("blocker %q not cleared by none", *m.Focus.Blocker)
	}
	_ = memcore.ApplyField(&m, "interaction_patterns.common_openers", "hi")
	if len(m.Interaction.CommonOpeners) != 1 || !umfield.IsList("INTERACTION.common_openers") {
		t.Errorf("common_openers = %v", m.Interaction.CommonOpeners)
	}
	if err := memcore.ApplyField(&m, "style.shoe_size", "44"); !errors.Is(err, memcore.ErrInvalidArgument) {
		t.Errorf("unknown field: %v", err)
	}
	if _, ok := m.Get("style"); ok || umfield.IsList("technical.nope") {
		t.Error("unknown paths reported as known")
	}
}
