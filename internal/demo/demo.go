// Package demo prepares copies of the bundled demo store. The demo data
// was generated at a fixed moment (Epoch); a copy is re-dated so that it
// looks the same age whenever it is opened, on the real clock every
// surface shares: the TUI, the CLI and the agent hook agree on ages, decay
// and quarantine expiry.
package demo

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// Epoch is the "now" the bundled demo store was generated at.
var Epoch = time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)

// files are the store files that carry timestamps.
var files = []string{"atoms.json", "quarantine.json", "user_model.json", "contradictions.json", "lane.json"}

// Redate shifts every timestamp in the store at dir (each value of a key
// ending in "_at": created_at, quarantined_at, …) by now − from, so an atom
// two days old at from is two days old at now. A file that does not exist
// is skipped; one that is not valid JSON is an error and is left as it was.
func Redate(dir string, from, now time.Time) error {
	delta := now.Sub(from)
	for _, name := range files {
		path := filepath.Join(dir, name)
		raw, err := os.ReadFile(path)
		if os.IsNotExist(err) {
			continue
		}
		if err != nil {
			return fmt.Errorf("redate %s: %w", name, err)
		}
		var doc any
		if err := json.Unmarshal(raw, &doc); err != nil {
			return fmt.Errorf("redate %s: %w", name, err)
		}
		doc = shift(doc, "", delta)
		out, err := json.MarshalIndent(doc, "", "  ")
		if err != nil {
			return fmt.Errorf("redate %s: %w", name, err)
		}
		tmp := path + ".redate"
		if err := os.WriteFile(tmp, append(out, '\n'), 0o600); err != nil {
			return fmt.Errorf("redate %s: %w", name, err)
		}
		if err := os.Rename(tmp, path); err != nil {
			os.Remove(tmp)
			return fmt.Errorf("redate %s: %w", name, err)
		}
	}
	return nil
}

// shift walks a decoded JSON value and moves the timestamps in it.
func shift(v any, key string, delta time.Duration) any {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			x[k] = shift(e, k, delta)
		}
		return x
	case []any:
		for i, e := range x {
			x[i] = shift(e, key, delta)
		}
		return x
	case string:
		if !strings.HasSuffix(key, "_at") {
			return x
		}
		t, err := time.Parse(time.RFC3339Nano, x)
		if err != nil {
			return x
		}
		return t.Add(delta).UTC().Format(time.RFC3339Nano)
	}
	return v
}
