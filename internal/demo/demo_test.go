package demo_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/odekmem/odekmem/internal/demo"
)

// TestRedateShiftsEveryTimestamp: created_at and quarantined_at move by
// the same amount, in every file that has them (the contradictions and
// the lane too); other fields, and strings that look like times under
// other keys, stay.
func TestRedateShiftsEveryTimestamp(t *testing.T) {
	dir := t.TempDir()
	write := func(name, s string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(s), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write("atoms.json", `[{"id":"a","created_at":"2026-11-27T12:00:00Z","context":{"session_id":"2026-11-27T12:00:00Z"}}]`)
	write("quarantine.json", `[{"id":"q","created_at":"2026-11-20T00:00:00Z","quarantined_at":"2026-11-21T00:00:00Z","reason":"tainted"}]`)
	from := time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)
	if err := demo.Redate(dir, from, from.Add(72*time.Hour)); err != nil {
		t.Fatal(err)
	}
	a, _ := os.ReadFile(filepath.Join(dir, "atoms.json"))
	q, _ := os.ReadFile(filepath.Join(dir, "quarantine.json"))
	for _, want := range []string{`"created_at": "2026-11-30T12:00:00Z"`, `"session_id": "2026-11-27T12:00:00Z"`} {
		if !strings.Contains(string(a), want) {
			t.Errorf("atoms.json lacks %s:\n%s", want, a)
		}
	}
	for _, want := range []string{`"created_at": "2026-11-23T00:00:00Z"`, `"quarantined_at": "2026-11-24T00:00:00Z"`} {
		if !strings.Contains(string(q), want) {
			t.Errorf("quarantine.json lacks %s:\n%s", want, q)
		}
	}
	write("contradictions.json", `{"version":"1","contradictions":[{"id":"c","old":"a","new":"b","created_at":"2026-11-27T12:00:05Z"}]}`)
	write("lane.json", `[{"id":"l","text":"skip the integration tag","created_at":"2026-11-28T10:00:00Z","context":{"turn":3}}]`)
	if err := demo.Redate(dir, from, from.Add(72*time.Hour)); err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]string{"contradictions.json": `"created_at": "2026-11-30T12:00:05Z"`, "lane.json": `"created_at": "2026-12-01T10:00:00Z"`} {
		if b, _ := os.ReadFile(filepath.Join(dir, name)); !strings.Contains(string(b), want) {
			t.Errorf("%s lacks %s:\n%s", name, want, b)
		}
	}
	write("user_model.json", `{not json`)
	if err := demo.Redate(dir, from, from); err == nil {
		t.Error("a damaged file was re-dated without error")
	}
}
