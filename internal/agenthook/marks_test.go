package agenthook

import (
	"fmt"
	"testing"
	"time"
)

// TestMarksAreBounded: a long-running serve process keeps at most
// maxMarks sessions' marks, however many sessions it sees.
func TestMarksAreBounded(t *testing.T) {
	rt := &Runtime{}
	at := time.Unix(0, 0)
	for i := 0; i < 3*maxMarks; i++ {
		rt.note(fmt.Sprintf("s%d", i), 1, at)
		if n := len(rt.marks); n > maxMarks {
			t.Fatalf("%d marks after %d sessions, want at most %d", n, i+1, maxMarks)
		}
	}
	rt.note("last", 7, at)
	if m, ok := rt.marks["last"]; !ok || m.turn != 7 {
		t.Fatalf("the newest session's mark is %+v, %v", m, ok)
	}
}
