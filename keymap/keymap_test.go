package keymap

import (
	"reflect"
	"testing"

	"github.com/charmbracelet/bubbles/key"
)

// bindings returns every key.Binding field of a scope struct.
func bindings(scope any) []key.Binding {
	var out []key.Binding
	v := reflect.ValueOf(scope)
	for i := 0; i < v.NumField(); i++ {
		switch f := v.Field(i).Interface().(type) {
		case key.Binding:
			out = append(out, f)
		case [7]key.Binding:
			out = append(out, f[:]...)
		}
	}
	return out
}

// TestNoClashesWithinScope checks no key is bound twice in a scope (or
// shadowed by a global key) and every binding has help text.
func TestNoClashesWithinScope(t *testing.T) {
	k := DefaultKeyMap()
	global := map[string]bool{}
	for _, b := range bindings(k.Global) {
		for _, s := range b.Keys() {
			global[s] = true
		}
	}
	scopes := map[string]any{"nav": k.Nav, "atoms": k.Atoms, "quarantine": k.Quarantine, "pending": k.Pending, "usermodel": k.UserModel,
		"assoc": k.Assoc, "budget": k.Budget, "recall": k.Recall}
	for name, sc := range scopes {
		seen := map[string]bool{}
		for _, b := range bindings(sc) {
			if b.Help().Key == "" || b.Help().Desc == "" {
				t.Errorf("%s: binding %v has no help", name, b.Keys())
			}
			for _, s := range b.Keys() {
				if global[s] {
					t.Errorf("%s: %q is also a global key", name, s)
				}
				// esc/backspace/left are shared by Back and ClearFilter on
				// purpose: only one is enabled at a time.
				if seen[s] && s != "esc" {
					t.Errorf("%s: %q bound twice", name, s)
				}
				seen[s] = true
			}
		}
	}
}

func TestUndoStartsDisabled(t *testing.T) {
	if DefaultKeyMap().Global.Undo.Enabled() {
		t.Fatal("undo enabled before anything happened")
	}
}

// TestListFilterKeysFreeInEveryListPane: "/" and esc (the shared list
// filter) clash with no key of a pane that filters.
func TestListFilterKeysFreeInEveryListPane(t *testing.T) {
	k := DefaultKeyMap()
	for name, sc := range map[string]any{"quarantine": k.Quarantine, "pending": k.Pending, "assoc": k.Assoc} {
		for _, b := range bindings(sc) {
			for _, s := range b.Keys() {
				for _, l := range bindings(k.List) {
					for _, ls := range l.Keys() {
						if s == ls {
							t.Errorf("%s: %q is also the list filter's key", name, s)
						}
					}
				}
			}
		}
	}
	for _, b := range bindings(k.Pending) {
		for _, s := range b.Keys() {
			if s == "y" {
				t.Error("pending binds y, the y/N prompt's yes key")
			}
		}
	}
}
