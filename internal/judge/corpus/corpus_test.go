package corpus

import (
	"strings"
	"testing"
)

func TestSplitsParse(t *testing.T) {
	ev, err := Eval()
	if err != nil {
		t.Fatal(err)
	}
	tr, err := Train()
	if err != nil {
		t.Fatal(err)
	}
	ids := map[string]bool{}
	msgs := map[string]string{}
	for _, r := range append(append([]Record(nil), ev...), tr...) {
		if ids[r.ID] {
			t.Errorf("%s:%d: id %s in both splits or twice", r.File, r.Line, r.ID)
		}
		ids[r.ID] = true
		// The held-out split shares no message with the training split.
		k := strings.ToLower(strings.Join(strings.Fields(r.Message), " "))
		if other, ok := msgs[k]; ok {
			t.Errorf("%s: the message of %s repeats %s", r.File, r.ID, other)
		}
		msgs[k] = r.ID
	}
	t.Logf("eval %d records, train %d", len(ev), len(tr))
}
