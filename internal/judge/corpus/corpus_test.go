package corpus

import (
	"os"
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

// FuzzParse: any input parses or fails with an error, and every label of
// a parsed record lies in its message.
func FuzzParse(f *testing.F) {
	for _, s := range []string{"", "==== a b\nx\n%% keep fact | x | x\n", "==== a b\n<<< y\nq\n>>>\n%% attack | q | q\n",
		"==== a b\n<<< y\n", "%% keep", "==== a\n", "==== a b\nx | y\n%% frame | x | y | x | x\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		recs, err := Parse(strings.NewReader(s), "fuzz")
		if err != nil {
			return
		}
		for _, r := range recs {
			for _, it := range r.Items {
				if it.Start < 0 || it.End > len(r.Message) || it.Start > it.End {
					t.Fatalf("label %+v outside %q", it, r.Message)
				}
			}
			for _, p := range r.Pastes {
				if p.Start < 0 || p.End > len(r.Message) || p.Start > p.End {
					t.Fatalf("paste %+v outside %q", p, r.Message)
				}
			}
		}
	})
}

// TestFreshParses: fresh.txt (a development set written by an engineer
// who read only README.md; measured, not trained on) parses, and shares no
// message with either split.
func TestFreshParses(t *testing.T) {
	f, err := os.Open("fresh.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	fresh, err := Parse(f, "fresh.txt")
	if err != nil {
		t.Fatal(err)
	}
	ev, _ := Eval()
	tr, _ := Train()
	seen := map[string]string{}
	for _, r := range append(ev, tr...) {
		seen[strings.ToLower(strings.Join(strings.Fields(r.Message), " "))] = r.ID
	}
	for _, r := range fresh {
		if other, ok := seen[strings.ToLower(strings.Join(strings.Fields(r.Message), " "))]; ok {
			t.Errorf("fresh.txt: the message of %s repeats %s", r.ID, other)
		}
	}
	if len(fresh) < 300 {
		t.Errorf("fresh.txt: %d records", len(fresh))
	}
}
