package memcore_test

import (
	"context"
	"strings"
	"testing"

	"github.com/odekmem/odekmem/memcore"
)

// TestPromoteStripsEveryHiddenCharacter: promote removes the whole hidden
// set the scanner derives from Unicode properties — braille blank,
// private use, object replacement, Egyptian format controls — not only
// format characters, so none reaches a trusted atom.
func TestPromoteStripsEveryHiddenCharacter(t *testing.T) {
	st := hOpen(t, nil, nil)
	ctx := context.Background()
	r, err := st.Add(ctx, memcore.AddRequest{Text: "Deploy\u2800 notes\ue000 live\ufffc in the\U00013437 wiki", Source: memcore.SourceWeb})
	if err != nil || !r.Quarantined || !strings.HasPrefix(r.Reason, "scan_rejected") {
		t.Fatalf("premise: %+v %v", r, err)
	}
	a, _, err := st.Promote(ctx, r.Atom.ID)
	if err != nil {
		t.Fatal(err)
	}
	if a.Text != "Deploy notes live in the wiki" {
		t.Fatalf("promoted text %q keeps hidden characters", a.Text)
	}
}
