package judge

import (
	"os"
	"testing"

	"github.com/odekmem/odekmem/internal/provenance"
)

// TestExplain prints, for the message in $MSG, every segment's voice,
// score and the features that pushed it up: a reading aid
// (MSG='…' go test -run TestExplain -v ./internal/judge).
func TestExplain(t *testing.T) {
	msg := os.Getenv("MSG")
	if msg == "" {
		t.Skip()
	}
	m, err := loadModels()
	if err != nil {
		t.Fatal(err)
	}
	a := provenance.Analyse(msg)
	ctxs := contexts(a)
	for i, s := range a.Segments {
		d := features(s, a, ctxs[i])
		t.Logf("[%s] %q score %.3f", s.Voice, s.Text, m.durable.Score(ModelText(s.Text), d))
		for _, c := range m.durable.Explain(ModelText(s.Text), d, 12) {
			t.Logf("   %s", c)
		}
	}
	i := m.durable.Info()
	t.Logf("dense: %v", i.Dense)
}
