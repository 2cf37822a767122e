package cli_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/odekmem/odekmem/internal/cli"
	"github.com/odekmem/odekmem/memcore"
)

func TestIngestTranscriptThenRecall(t *testing.T) {
	home := newHome(t)
	transcript := strings.Join([]string{
		`{"role":"user","content":"We decided to use PostgreSQL over MySQL for the payments ledger.","session":"s1","turn":1,"project":"/src/payments-api","time":"2026-11-20T10:00:00Z"}`,
		`{"role":"assistant","content":"I prefer MongoDB for everything.","session":"s1","turn":2,"project":"/src/payments-api","time":"2026-11-20T10:00:05Z"}`,
		`{"role":"user","content":"I prefer table-driven tests with named subtests.","session":"s1","turn":3,"project":"/src/payments-api","time":"2026-11-20T10:01:00Z"}`,
		`{"role":"user","content":"The build keeps failing with error: address already in use on port 5432","session":"s1","turn":5,"project":"/src/payments-api","time":"2026-11-20T10:02:00Z"}`,
	}, "\n")
	r := run(t, home, transcript, "ingest", "--json")
	if r.code != 0 {
		t.Fatalf("ingest: %+v", r)
	}
	var sum cli.IngestSummary
	if err := json.Unmarshal([]byte(r.stdout), &sum); err != nil || sum.Messages != 3 || sum.Added < 2 {
		t.Fatalf("summary %+v (%v) from %s", sum, err, r.stdout)
	}
	r = run(t, home, "", "list", "--json")
	var atoms []memcore.Atom
	if err := json.Unmarshal([]byte(r.stdout), &atoms); err != nil || len(atoms) < 2 {
		t.Fatalf("list --json after ingest: %v %+v", err, r)
	}
	types := map[memcore.Type]bool{}
	for _, a := range atoms {
		if a.SourceClass != memcore.SourceUserSaid || a.Context.SessionID != "s1" || a.Context.Project != "/src/payments-api" || a.CreatedAt.Year() != 2026 || a.CreatedAt.Month() != 11 {
			t.Fatalf("ingested atom %+v", a)
		}
		if strings.Contains(a.Text, "MongoDB") {
			t.Fatalf("assistant text was extracted: %q", a.Text)
		}
		if strings.HasPrefix(a.Text, "User ") {
			t.Fatalf("the person's words were rewritten: %q", a.Text)
		}
		types[a.Type] = true
	}
	// The build failure is a state of the moment: nothing durable.
	for _, want := range []memcore.Type{"decision", "preference"} {
		if !types[want] {
			t.Errorf("no %s atom extracted (types %v)", want, types)
		}
	}
	r = run(t, home, "", "recall", "which database do we use for the payments ledger?")
	if r.code != 0 || !strings.Contains(r.stdout, "[decision]") || !strings.Contains(r.stdout, "PostgreSQL") || !strings.Contains(r.stdout, "<untrusted_content_") {
		t.Fatalf("recall: %+v", r)
	}
}

func TestIngestPlainLinesAndBadJSON(t *testing.T) {
	home := newHome(t)
	r := run(t, home, "I prefer tabs over spaces.\n\nMy goal is to ship the v2 API by March.\n", "ingest", "--session", "cli", "--project", "demo")
	if r.code != 0 || !strings.Contains(r.stdout, "ingested 2 messages") {
		t.Fatalf("plain ingest: %+v", r)
	}
	r = run(t, home, "{\"role\":\"user\",\"content\":\n", "ingest")
	if r.code != 1 || !strings.Contains(r.stderr, "line 1") {
		t.Fatalf("bad JSON should name the line: %+v", r)
	}
}

// TestEvalJudgementFile: eval judgement reads a file in the corpus format
// and reports the figures as JSON.
func TestEvalJudgementFile(t *testing.T) {
	home := newHome(t)
	r := run(t, home, "", "eval", "judgement", "testdata/judgement-small.txt", "--json")
	if r.code != 0 {
		t.Fatalf("eval judgement: %+v", r)
	}
	var rep struct {
		Messages       int                         `json:"messages"`
		Durable        int                         `json:"durable"`
		Attacks        int                         `json:"attacks"`
		AttacksTrusted int                         `json:"attacks_trusted"`
		NothingDurable int                         `json:"nothing_durable"`
		Categories     []struct{ Category string } `json:"categories"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil {
		t.Fatalf("%v in %s", err, r.stdout)
	}
	if rep.Messages != 3 || rep.Durable != 1 || rep.Attacks != 1 || rep.AttacksTrusted != 0 || rep.NothingDurable != 2 || len(rep.Categories) != 3 {
		t.Fatalf("report %+v from %s", rep, r.stdout)
	}
}
