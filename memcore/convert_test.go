package memcore

import (
	"reflect"
	"testing"

	"github.com/odekmem/odekmem/internal/engine"
	"github.com/odekmem/odekmem/internal/mirror/mirrortest"
)

// Left out on purpose: Atom.Origin (what a promoted atom was in
// quarantine, which odekmem's TUI and CLI show) and AddResult.Duplicate
// (set only by import).
func TestConvertCoversEveryPublicType(t *testing.T) {
	mirrortest.Outward[engine.Atom, Atom](t, "origin")
	mirrortest.Outward[engine.AtomContext, AtomContext](t)
	mirrortest.Outward[engine.AddResult, AddResult](t, "duplicate", "origin")
	mirrortest.Outward[engine.Scored, Scored](t, "origin")
	mirrortest.Outward[engine.Block, Block](t, "origin")
	mirrortest.Outward[engine.TurnContext, TurnContext](t, "origin")
	mirrortest.Outward[engine.RecordResult, RecordResult](t, "duplicate", "origin")
	mirrortest.Outward[engine.Contradiction, Contradiction](t)
	mirrortest.Outward[engine.ToolSpec, ToolSpec](t)
	mirrortest.Inward[AddRequest, engine.AddRequest](t)
	mirrortest.Inward[SearchOptions, engine.SearchOptions](t)
	mirrortest.Inward[Turn, engine.Turn](t)
	mirrortest.Inward[LLMConfig, engine.LLMConfig](t)
	mirrortest.Inward[EmbeddingConfig, engine.EmbeddingConfig](t)
}

// TestConfigMirrorsTheEngine: every setting the engine reads can be set
// here, under the same JSON key, and survives the trip.
func TestConfigMirrorsTheEngine(t *testing.T) {
	et, pt := reflect.TypeOf(engine.Config{}), reflect.TypeOf(Config{})
	for i := 0; i < et.NumField(); i++ {
		f := et.Field(i)
		if !f.IsExported() {
			continue
		}
		pf, ok := pt.FieldByName(f.Name)
		if !ok || pf.Tag.Get("json") != f.Tag.Get("json") {
			t.Errorf("engine setting %s (%s) has no twin in memcore.Config", f.Name, f.Tag.Get("json"))
		}
	}
	c := mirrortest.Filled[Config]()
	c.DecayHalfLifeByType = map[string]float64{"decision": 12, "intent": 0}
	e, err := c.engine()
	if err != nil {
		t.Fatal(err)
	}
	if back := configFrom(e); !reflect.DeepEqual(back, c) {
		t.Errorf("Config does not survive the engine's:\n%+v\n%+v", c, back)
	}
	if got := mirrortest.JSON(t, e)["decay_half_life_days_by_type"]; !reflect.DeepEqual(got, map[string]any{"decision": 12.0, "intent": 0.0}) {
		t.Errorf("half-lives reached the engine as %v", got)
	}
}
