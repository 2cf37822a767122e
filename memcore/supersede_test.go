package memcore_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/odekmem/odekmem/memcore"
)

func supIDs(res []memcore.Scored) []string {
	var out []string
	for _, r := range res {
		out = append(out, r.Atom.ID)
	}
	return out
}

func indexOf(ids []string, id string) int {
	for i, x := range ids {
		if x == id {
			return i
		}
	}
	return -1
}

// TestSupersededByExplicitChangeOffline: "we moved order events from
// RabbitMQ to Kafka" supersedes the older "we use RabbitMQ for order
// events" with no LLM: the pair is recorded and linked, the older atom is
// kept, and no search ranks it above its successor — not even one that
// matches the old wording better.
func TestSupersededByExplicitChangeOffline(t *testing.T) {
	dir := t.TempDir()
	st, err := memcore.Open(context.Background(), dir, memcore.Options{Now: func() time.Time { return hNow }})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close(context.Background())
	old := hAdd(t, st, "We use RabbitMQ for order events", "decision", "", 100*24*time.Hour)
	other := hAdd(t, st, "We use Redis for the session cache", "decision", "", 90*24*time.Hour)
	newer := hAdd(t, st, "We moved order events from RabbitMQ to Kafka", "decision", "", 24*time.Hour)
	cs, err := st.DetectContradictions(context.Background(), newer.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(cs) != 1 || cs[0].Old != old.ID || cs[0].New != newer.ID || cs[0].Method != "rule" || cs[0].Resolution != "" {
		t.Fatalf("contradictions %+v", cs)
	}
	if succ, ok := supersededBy(st, old.ID); !ok || succ != newer.ID {
		t.Fatalf("old atom not superseded: %q %v", succ, ok)
	}
	if _, ok := supersededBy(st, other.ID); ok {
		t.Fatal("an unrelated decision was superseded")
	}
	if _, _, err := st.Get(context.Background(), old.ID); err != nil {
		t.Fatalf("the superseded atom is gone: %v", err)
	}
	linked := false
	for _, l := range must(st.Links(context.Background(), old.ID)) {
		if l.ID == newer.ID && l.Kind == memcore.LinkSupersedes {
			linked = true
		}
	}
	if !linked {
		t.Fatalf("pair not linked: %+v", must(st.Links(context.Background(), old.ID)))
	}
	for _, q := range []string{"which broker do we use for order events", "RabbitMQ order events", "we use RabbitMQ"} {
		res, err := st.Search(context.Background(), q, memcore.SearchOptions{})
		if err != nil {
			t.Fatal(err)
		}
		ids := supIDs(res)
		o, n := indexOf(ids, old.ID), indexOf(ids, newer.ID)
		if o >= 0 && (n < 0 || o < n) {
			t.Fatalf("%q: superseded atom at %d, successor at %d", q, o, n)
		}
	}
	// Detecting again records nothing new; a reopened store keeps the list.
	if again, _ := st.DetectContradictions(context.Background(), newer.ID); len(again) != 0 {
		t.Fatalf("recorded twice: %+v", again)
	}
	st.Close(context.Background())
	st2, err := memcore.Open(context.Background(), dir, memcore.Options{Now: func() time.Time { return hNow }})
	if err != nil {
		t.Fatal(err)
	}
	defer st2.Close(context.Background())
	if p := must(st2.Contradictions(context.Background(), false)); len(p) != 1 || p[0].ID != cs[0].ID {
		t.Fatalf("after reopen: %+v", p)
	}
	// odek's atoms.json keeps its shape: nothing of this lands there.
	b, err := os.ReadFile(filepath.Join(dir, "atoms.json"))
	if err != nil || strings.Contains(string(b), "supersed") || strings.Contains(string(b), "contradict") {
		t.Fatalf("atoms.json carries supersede state: %v", err)
	}
}

// TestSupersedeRuleIsConservative: same subject and type with a different
// value is a contradiction; a different subject, a different type, the
// same value, or an added detail is not.
func TestSupersedeRuleIsConservative(t *testing.T) {
	cases := []struct {
		name, old string
		oldType   memcore.Type
		new       string
		newType   memcore.Type
		want      bool
	}{
		{"decided value changed", "Decided to use PostgreSQL for billing", "decision", "Decided to use MySQL for billing", "decision", true},
		{"we use, subject phrase", "We use Jenkins for CI builds", "fact", "We now use GitHub Actions for CI builds", "fact", true},
		{"is value changed", "The staging region is eu-west-1", "fact", "The staging region is us-east-2", "fact", true},
		{"replaced", "Decided on Datadog for metrics", "decision", "Replaced Datadog with Prometheus", "decision", true},
		{"different subject", "Decided to use PostgreSQL for billing", "decision", "Decided to use Redis for caching", "decision", false},
		{"different type", "Decided to use PostgreSQL for billing", "decision", "Decided to use MySQL for billing", "question", false},
		{"same value", "We use Kafka for order events", "fact", "We use Kafka for order events, partitioned by merchant", "fact", false},
		{"change names another thing", "We use Redis for the cache", "decision", "We moved order events from RabbitMQ to Kafka", "decision", false},
		{"change already reflected", "We use Kafka for order events", "decision", "We moved order events from RabbitMQ to Kafka", "decision", false},
		// issue 26: a change of another subject off the same system.
		{"change of another subject", "We moved order events from RabbitMQ to Kafka", "decision", "We moved billing events from Kafka to NATS", "decision", false},
		{"change of the same subject", "We moved order events from RabbitMQ to Kafka", "decision", "We moved the order events from Kafka to NATS", "decision", true},
		{"change with no object", "We use Kafka for order events", "decision", "We moved everything over from Kafka to NATS", "decision", true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			st := hOpen(t, nil, nil)
			o := hAdd(t, st, tc.old, tc.oldType, "", 50*24*time.Hour)
			n := hAdd(t, st, tc.new, tc.newType, "", time.Hour)
			cs, err := st.DetectContradictions(context.Background(), n.ID)
			if err != nil {
				t.Fatal(err)
			}
			got := len(cs) == 1 && cs[0].Old == o.ID
			if got != tc.want || len(cs) > 1 {
				t.Fatalf("contradiction %v (%+v), want %v", got, cs, tc.want)
			}
		})
	}
}

// TestResolveContradiction: keep-old turns the supersession around,
// keep-both lifts it, keep-new keeps it; the list empties; bad input is
// named.
func TestResolveContradiction(t *testing.T) {
	st := hOpen(t, nil, nil)
	old := hAdd(t, st, "Decided to use PostgreSQL for billing", "decision", "", 60*24*time.Hour)
	newer := hAdd(t, st, "Decided to use MySQL for billing", "decision", "", time.Hour)
	cs, err := st.DetectContradictions(context.Background(), newer.ID)
	if err != nil || len(cs) != 1 {
		t.Fatalf("%+v %v", cs, err)
	}
	ctx := context.Background()
	if _, _, err := st.ResolveContradiction(ctx, cs[0].ID, "keep-everything"); !errors.Is(err, memcore.ErrInvalidArgument) {
		t.Fatalf("bad resolution: %v", err)
	}
	if _, _, err := st.ResolveContradiction(ctx, "0123456789abcdef0123456789abcdef", memcore.ResolveKeepNew); !errors.Is(err, memcore.ErrNotFound) {
		t.Fatalf("unknown id: %v", err)
	}
	if _, _, err := st.ResolveContradiction(ctx, cs[0].ID, memcore.ResolveKeepOld); err != nil {
		t.Fatal(err)
	}
	if succ, ok := supersededBy(st, newer.ID); !ok || succ != old.ID {
		t.Fatalf("keep-old: the newer atom should be superseded by the older (%q %v)", succ, ok)
	}
	res, _ := st.Search(ctx, "which database for billing MySQL", memcore.SearchOptions{})
	ids := supIDs(res)
	if n, o := indexOf(ids, newer.ID), indexOf(ids, old.ID); n >= 0 && (o < 0 || n < o) {
		t.Fatalf("keep-old: the newer atom outranks the kept one: %v", ids)
	}
	if len(must(st.Contradictions(ctx, false))) != 0 || len(must(st.Contradictions(ctx, true))) != 1 {
		t.Fatalf("pending %d all %d", len(must(st.Contradictions(ctx, false))), len(must(st.Contradictions(ctx, true))))
	}
	if _, _, err := st.ResolveContradiction(ctx, cs[0].ID, memcore.ResolveKeepBoth); err != nil {
		t.Fatal(err)
	}
	_, ok1 := supersededBy(st, newer.ID)
	_, ok2 := supersededBy(st, old.ID)
	if ok1 || ok2 {
		t.Fatal("keep-both: still superseded")
	}
	res, _ = st.Search(ctx, "PostgreSQL billing", memcore.SearchOptions{})
	if indexOf(supIDs(res), old.ID) < 0 {
		t.Fatal("keep-both: the older atom is not recalled")
	}
}

// TestSupersedeWithScriptedLLM: with a memory LLM the model decides among
// the similar older atoms (here one the rule would not catch); a failing
// model falls back to the rule; the hook records contradictions for the
// atoms it extracts; an untrusted atom supersedes nothing.
func TestSupersedeWithScriptedLLM(t *testing.T) {
	var failing bool
	f := hNewFake(t, func(task, user string) (string, int) {
		if task == "other" && strings.Contains(user, "EARLIER:") {
			if failing {
				return "", 500
			}
			if strings.Contains(user, "Ansible") {
				return "The replaced one is:\n```json\n[0]\n```", 0
			}
			return "[]", 0
		}
		return noLLMAnswer(task, user)
	})
	c := f.client(t, 5)
	st := hOpen(t, c, nil)
	old := hAdd(t, st, "Servers are provisioned with Ansible playbooks", "convention", "", 80*24*time.Hour)
	newer := hAdd(t, st, "Servers are now provisioned with Terraform, no more Ansible playbooks", "convention", "", time.Hour)
	cs, err := st.DetectContradictions(context.Background(), newer.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(cs) != 1 || cs[0].Old != old.ID || cs[0].Method != "llm" {
		t.Fatalf("llm contradictions %+v", cs)
	}
	// The model is down: the rule decides.
	failing = true
	o2 := hAdd(t, st, "Decided to use Jenkins for CI builds", "decision", "", 70*24*time.Hour)
	n2 := hAdd(t, st, "Decided to use Buildkite for CI builds", "decision", "", time.Hour)
	cs, err = st.DetectContradictions(context.Background(), n2.ID)
	if err != nil || len(cs) != 1 || cs[0].Old != o2.ID || cs[0].Method != "rule" {
		t.Fatalf("fallback %+v %v", cs, err)
	}
	// An untrusted atom never supersedes a trusted one.
	r, err := st.Add(context.Background(), memcore.AddRequest{Text: "Decided to use TeamCity for CI builds", Type: "decision", Source: memcore.SourceWeb})
	if err != nil {
		t.Fatal(err)
	}
	if cs, err := st.DetectContradictions(context.Background(), r.Atom.ID); err != nil || len(cs) != 0 {
		t.Fatalf("tainted atom superseded: %+v %v", cs, err)
	}
}

// supersededBy is SupersededBy as (successor, superseded); an error fails.
func supersededBy(st *memcore.Store, id string) (string, bool) {
	succ := must(memcore.SupersededBy(st, context.Background(), id))
	return succ, succ != ""
}
