package main

import (
	"bytes"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/odekmem/odekmem/memcore"
)

// committed is the store checked into the repository; regenerate it with
//
//	go run ./internal/demogen -out testdata/demo -now 2026-11-29T12:00:00Z
const committed = "../../testdata/demo"

var demoNow = time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)

var idRE = regexp.MustCompile(`^[0-9a-f]{32}$`)

// readTree returns every regular file under dir, keyed by slash path.
func readTree(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		b, err := os.ReadFile(p)
		out[filepath.ToSlash(rel)] = b
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestCommittedStoreMatchesGenerator(t *testing.T) {
	dir := t.TempDir()
	files, err := Generate(demoNow)
	if err != nil {
		t.Fatal(err)
	}
	if err := WriteDir(dir, files); err != nil {
		t.Fatal(err)
	}
	got := readTree(t, dir)
	want := readTree(t, committed)
	for name, b := range got {
		w, ok := want[name]
		if !ok {
			t.Errorf("%s: generated but not committed", name)
		} else if !bytes.Equal(b, w) {
			t.Errorf("%s: committed copy differs from generator output", name)
		}
	}
	for name := range want {
		if _, ok := got[name]; !ok {
			t.Errorf("%s: committed but not generated", name)
		}
	}
	if t.Failed() {
		t.Log("regenerate: go run ./internal/demogen -out testdata/demo -now 2026-11-29T12:00:00Z")
	}

	// Modes of freshly written output (git does not keep 0600 on checkout).
	for _, p := range []string{dir, filepath.Join(dir, "chunks")} {
		if fi, err := os.Stat(p); err != nil || fi.Mode().Perm() != 0o700 {
			t.Errorf("%s: want dir mode 0700, got %v (%v)", p, fi.Mode().Perm(), err)
		}
	}
	for name := range got {
		fi, err := os.Stat(filepath.Join(dir, filepath.FromSlash(name)))
		if err != nil || fi.Mode().Perm() != 0o600 {
			t.Errorf("%s: want file mode 0600 (%v)", name, err)
		}
	}

	// A second run is byte-identical.
	again, err := Generate(demoNow)
	if err != nil {
		t.Fatal(err)
	}
	for name, b := range files {
		if !bytes.Equal(again[name], b) {
			t.Errorf("%s: not deterministic", name)
		}
	}
}

type anyAtom struct {
	ID          string `json:"id"`
	SourceClass string `json:"source_class"`
	Type        string `json:"type"`
	Text        string `json:"text"`
	CreatedAt   string `json:"created_at"`
	Context     *struct {
		SessionID      string   `json:"session_id"`
		Turn           int      `json:"turn"`
		Project        string   `json:"project"`
		RelatedAtomIDs []string `json:"related_atom_ids"`
	} `json:"context"`
	Pin           *bool    `json:"pin"`
	Confidence    *float64 `json:"confidence"`
	QuarantinedAt string   `json:"quarantined_at"`
	Reason        *string  `json:"reason"`
}

func decode(t *testing.T, name string, v any) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(committed, name))
	if err != nil {
		t.Fatal(err)
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	// Pretty-printed with 2-space indent and no trailing newline.
	var buf bytes.Buffer
	if err := json.Indent(&buf, b, "", "  "); err != nil || !bytes.Equal(buf.Bytes(), b) {
		t.Errorf("%s: not 2-space indented JSON", name)
	}
}

var (
	trusted = map[string]bool{"user_said": true, "user_approved": true}
	tainted = map[string]bool{"inferred": true, "tool_output": true, "file_read": true, "web": true,
		"mcp": true, "subagent": true, "agent_generated": true}
	types = map[string]bool{"preference": true, "intent": true, "fact": true, "decision": true, "goal": true,
		"convention": true, "file": true, "error": true, "question": true, "observation": true}
)

func checkAtom(t *testing.T, where string, a anyAtom) {
	t.Helper()
	if !idRE.MatchString(a.ID) {
		t.Errorf("%s: bad id %q", where, a.ID)
	}
	if !types[a.Type] {
		t.Errorf("%s %s: bad type %q", where, a.ID, a.Type)
	}
	ts, err := time.Parse(time.RFC3339Nano, a.CreatedAt)
	if err != nil || ts.Location() != time.UTC || !ts.Before(demoNow) || ts.Format(time.RFC3339Nano) != a.CreatedAt {
		t.Errorf("%s %s: bad created_at %q", where, a.ID, a.CreatedAt)
	}
	if a.Pin != nil && !*a.Pin {
		t.Errorf("%s %s: pin false must be omitted", where, a.ID)
	}
	if a.Confidence != nil && (*a.Confidence < 0.5 || *a.Confidence >= 1.0001) {
		t.Errorf("%s %s: confidence %v out of range", where, a.ID, *a.Confidence)
	}
	if a.Context == nil || a.Context.SessionID == "" || a.Context.Turn < 1 || a.Context.Turn > 40 || a.Context.Project == "" {
		t.Errorf("%s %s: incomplete context", where, a.ID)
	} else if a.Context.RelatedAtomIDs != nil && len(a.Context.RelatedAtomIDs) == 0 {
		t.Errorf("%s %s: empty related_atom_ids must be omitted", where, a.ID)
	}
}

func TestCommittedStoreIsValid(t *testing.T) {
	var atoms []anyAtom
	decode(t, "atoms.json", &atoms)
	live := map[string]bool{}
	sawType := map[string]bool{}
	for _, a := range atoms {
		checkAtom(t, "atoms.json", a)
		if a.Text != "" {
			t.Errorf("atoms.json %s: text must live in chunks/", a.ID)
		}
		if !trusted[a.SourceClass] {
			t.Errorf("atoms.json %s: live atom with source_class %q", a.ID, a.SourceClass)
		}
		if live[a.ID] {
			t.Errorf("atoms.json: duplicate id %s", a.ID)
		}
		live[a.ID] = true
		sawType[a.Type] = true
		b, err := os.ReadFile(filepath.Join(committed, "chunks", a.ID+".md"))
		if err != nil {
			t.Errorf("atoms.json %s: no chunk: %v", a.ID, err)
			continue
		}
		if n := len(b); n < 40 || n > 280 || !utf8.Valid(b) || strings.HasSuffix(string(b), "\n") {
			t.Errorf("chunks/%s.md: want 40..280 bytes of UTF-8 without trailing newline, got %d", a.ID, n)
		}
	}
	for ty := range types {
		if !sawType[ty] {
			t.Errorf("atoms.json: no atom of type %s", ty)
		}
	}
	for _, a := range atoms {
		if a.Context == nil {
			continue
		}
		for _, r := range a.Context.RelatedAtomIDs {
			if !live[r] {
				t.Errorf("atoms.json %s: related id %s is not a live atom", a.ID, r)
			}
		}
	}
	chunks, err := os.ReadDir(filepath.Join(committed, "chunks"))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range chunks {
		id, ok := strings.CutSuffix(e.Name(), ".md")
		if !ok || !live[id] {
			t.Errorf("chunks/%s: no atoms.json entry", e.Name())
		}
	}

	var quarantine []anyAtom
	decode(t, "quarantine.json", &quarantine)
	sawClass := map[string]bool{}
	for _, a := range quarantine {
		checkAtom(t, "quarantine.json", a)
		if !tainted[a.SourceClass] {
			t.Errorf("quarantine.json %s: source_class %q is not tainted", a.ID, a.SourceClass)
		}
		sawClass[a.SourceClass] = true
		if live[a.ID] {
			t.Errorf("quarantine.json %s: also live", a.ID)
		}
		if a.Text == "" || !utf8.ValidString(a.Text) {
			t.Errorf("quarantine.json %s: missing or invalid text", a.ID)
		}
		if a.Reason == nil || len(*a.Reason) > 200 || (*a.Reason != "tainted" && !strings.HasPrefix(*a.Reason, "scan_rejected: ")) {
			t.Errorf("quarantine.json %s: bad reason", a.ID)
		}
		q, err := time.Parse(time.RFC3339Nano, a.QuarantinedAt)
		if err != nil || q.After(demoNow) || q.Format(time.RFC3339Nano) != a.QuarantinedAt {
			t.Errorf("quarantine.json %s: bad quarantined_at %q", a.ID, a.QuarantinedAt)
		}
		if strings.Contains(a.Text, "[REDACTED:") && !regexp.MustCompile(`\[REDACTED:[a-z_]+\]`).MatchString(a.Text) {
			t.Errorf("quarantine.json %s: malformed redaction", a.ID)
		}
	}
	for c := range tainted {
		if !sawClass[c] {
			t.Errorf("quarantine.json: no entry with source_class %s", c)
		}
	}

	var um UserModel
	decode(t, "user_model.json", &um)
	if um.Version != "1" || um.Style == nil || um.Technical == nil || um.CurrentFocus == nil || um.InteractionPatterns == nil {
		t.Errorf("user_model.json: missing sections")
	}
	known := regexp.MustCompile(`^(style\.(verbosity|humor|formality|explanation_depth|tone)|focus\.(project|task|blocker)|interaction\.(followup_after_refactor|followup_after_bugfix)|technical\.(languages|patterns|tools))$`)
	for _, p := range um.PendingReview {
		if !idRE.MatchString(p.ID) || !known.MatchString(p.Field) || p.Value == "" || p.Evidence == "" || p.Confidence <= 0 || p.Confidence > 1 {
			t.Errorf("user_model.json: bad pending_review %+v", p)
		}
		if _, err := time.Parse(time.RFC3339Nano, p.CreatedAt); err != nil {
			t.Errorf("user_model.json: pending %s: %v", p.ID, err)
		}
	}

	var assoc map[string][]string
	decode(t, "associations.json", &assoc)
	pairs := map[string]bool{}
	for id, others := range assoc {
		if !live[id] {
			t.Errorf("associations.json: unknown id %s", id)
		}
		if len(others) == 0 {
			t.Errorf("associations.json %s: empty list", id)
		}
		if !sort.StringsAreSorted(others) {
			t.Errorf("associations.json %s: not sorted", id)
		}
		for i, o := range others {
			if !live[o] || o == id || (i > 0 && others[i-1] == o) {
				t.Errorf("associations.json %s: bad link %s", id, o)
			}
			found := false
			for _, back := range assoc[o] {
				found = found || back == id
			}
			if !found {
				t.Errorf("associations.json: %s -> %s is not symmetric", id, o)
			}
			x, y := id, o
			if y < x {
				x, y = y, x
			}
			pairs[x+"|"+y] = true
		}
	}
	var kinds map[string]string
	decode(t, "associations_kinds.json", &kinds)
	for k, v := range kinds {
		if !pairs[k] {
			t.Errorf("associations_kinds.json: %s is not a link pair", k)
		}
		if v != "temporal" && v != "task" && v != "semantic" && v != "supersedes" {
			t.Errorf("associations_kinds.json: %s: bad kind %q", k, v)
		}
	}
	for k := range pairs {
		if _, ok := kinds[k]; !ok {
			t.Errorf("associations_kinds.json: no kind for %s", k)
		}
	}

	var contra contradictionsFile
	decode(t, "contradictions.json", &contra)
	for _, c := range contra.Contradictions {
		if !idRE.MatchString(c.ID) || !live[c.Old] || !live[c.New] || c.Old == c.New || c.Resolution != "" || !c.CreatedAt.Before(demoNow) {
			t.Errorf("contradictions.json: bad pending contradiction %+v", c)
		}
		if kinds[pairKey(c.Old, c.New)] != "supersedes" {
			t.Errorf("contradictions.json %s: its atoms are not linked as supersedes", c.ID)
		}
	}
	var lane []memcore.LaneEntry
	decode(t, "lane.json", &lane)
	for _, e := range lane {
		if !idRE.MatchString(e.ID) || live[e.ID] || !types[string(e.Type)] || e.Text == "" || e.Why == "" || e.Message == "" || !e.CreatedAt.Before(demoNow) {
			t.Errorf("lane.json: bad entry %+v", e)
		}
	}
}
