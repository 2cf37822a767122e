package memcore

import (
	"slices"
	"testing"

	"github.com/odekmem/odekmem/internal/umfield"
)

// TestModelFieldsMatchTheVocabulary: the accessor table covers exactly the
// paths confirm and inference name (umfield.Fields, llm.UserStateFields),
// in the same order, and a field is a list in the table exactly when
// umfield says so (Confirm appends to it then).
func TestModelFieldsMatchTheVocabulary(t *testing.T) {
	var names []string
	for _, f := range modelFields {
		names = append(names, f.name)
		if (f.list != nil) != umfield.IsList(f.name) {
			t.Errorf("%s: list in the table %v, umfield.IsList %v", f.name, f.list != nil, umfield.IsList(f.name))
		}
	}
	if !slices.Equal(names, umfield.Fields) {
		t.Fatalf("table %v\n  umfield.Fields %v", names, umfield.Fields)
	}
}
