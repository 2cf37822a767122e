package memcore_test

import (
	"encoding/json"
	"testing"

	"github.com/odekmem/odekmem/memcore"
)

// TestConfigFromJSONKeepsExplicitOffValues: a Config decoded from JSON
// into a zero value keeps the switches the JSON turns off (a zero field of
// a literal means "the default"; a decoded one means what the file says),
// and the keys it leaves out are the defaults.
func TestConfigFromJSONKeepsExplicitOffValues(t *testing.T) {
	var c memcore.Config
	if err := json.Unmarshal([]byte(`{"associations_enabled":false,"semantic_search_min_score":0,"dedup_threshold":0,"semantic_search_top_k":3}`), &c); err != nil {
		t.Fatal(err)
	}
	st, err := memcore.Open(t.TempDir(), memcore.Options{Config: &c})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	got, def := st.Config(), memcore.DefaultConfig()
	if got.AssociationsEnabled || got.SemanticSearchMinScore != 0 || got.DedupThreshold != 0 || got.SemanticSearchTopK != 3 {
		t.Fatalf("explicit values lost: associations %v, min score %v, dedup %v, top k %d", got.AssociationsEnabled, got.SemanticSearchMinScore, got.DedupThreshold, got.SemanticSearchTopK)
	}
	if got.MaxSizeMB != def.MaxSizeMB || got.DecayHalfLifeByType != def.DecayHalfLifeByType {
		t.Fatalf("keys the JSON left out are not the defaults: %v %v", got.MaxSizeMB, got.DecayHalfLifeByType)
	}
	// Over a value that is not zero, decoding changes only what the JSON names.
	c2 := memcore.DefaultConfig()
	c2.MaxSizeMB = 7
	if err := json.Unmarshal([]byte(`{"semantic_search_top_k":4}`), &c2); err != nil || c2.MaxSizeMB != 7 || c2.SemanticSearchTopK != 4 {
		t.Fatalf("layered decode: %v %+v", err, c2)
	}
}
