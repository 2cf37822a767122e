package cli

// The store-wide verbs: compact, stats, export, init and the TUI.

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"sort"
	"strings"

	"github.com/odekmem/odekmem/internal/agentsetup"
	"github.com/odekmem/odekmem/internal/humanize"
	"github.com/odekmem/odekmem/internal/procstart"
	"github.com/odekmem/odekmem/internal/scan"
)

func cmdCompact(c *ctx) error {
	r, err := c.store.Compact(c)
	if err != nil {
		return err
	}
	if c.json {
		return c.emitJSON(r)
	}
	c.out("compacted: %s\n", humanize.Compaction(r.Before, r.After, r.Reclaimed, r.Expired, r.Vectors)) // in words: "grew by 188.0 KiB: the vector cache was rebuilt (…)"
	return nil
}

func human(n int64) string { return humanize.Bytes(n) }

// staleWords says what Stats.Index.Stale means: writes since the vector
// cache was last saved, which the next open re-embeds from the notes.
func staleWords(n int) string {
	if n == 0 {
		return "the vector cache on disk is up to date"
	}
	return fmt.Sprintf("%d recent changes not yet saved to the vector cache (saved every 512 changes and on compact; the next open re-embeds them)", n)
}

func cmdStats(c *ctx) error {
	st, err := c.store.Stats(c)
	if err != nil {
		return err
	}
	if c.json {
		return c.emitJSON(st)
	}
	c.out("store:      %s\n", st.Dir)
	capS := "no cap"
	if st.CapBytes > 0 {
		capS = fmt.Sprintf("%s (%.1f%%)", human(st.CapBytes), 100*float64(st.TotalBytes)/float64(st.CapBytes))
	}
	c.out("size:       %s of %s\n", human(st.TotalBytes), capS)
	for _, k := range sortedKeys(st.Components) {
		c.out("  %-13s %s\n", k, human(st.Components[k]))
	}
	c.out("atoms:      %d live (%d pinned), %d quarantined, %d pending reviews, %d links\n", st.Live, st.Pinned, st.Quarantine, st.Pending, st.Links)
	for _, g := range []struct {
		name string
		m    map[string]int
	}{{"by type", stringKeys(st.ByType)}, {"by source (live + quarantine)", stringKeys(st.BySource)}, {"by reason", st.ByReason}, {"by project", st.ByProject}} {
		if len(g.m) == 0 {
			continue
		}
		var parts []string
		for _, k := range sortedKeys(g.m) {
			parts = append(parts, fmt.Sprintf("%s %d", scan.Visible(k), g.m[k]))
		}
		c.out("%-11s %s\n", g.name+":", strings.Join(parts, ", "))
	}
	ix := st.Index
	c.out("index:      %s search over %d vectors of %d dims (embedder %s); %s", ix.Kind, ix.Vectors, ix.Dims, ix.Fingerprint, staleWords(ix.Stale))
	if ix.Rebuilding {
		c.out(", rebuilding %d/%d", ix.Done, ix.Total)
	}
	c.out("\n")
	if g := st.Guard; g != nil {
		c.out("guard:      %d checks, %d blocked, %d cache hits, %d outages (fell back to the local scanner)", g.Checks, g.Blocks, g.CacheHits, g.Outages)
		if g.LastError != "" {
			c.out("; last outage %s: %s", g.LastAt, scan.Visible(g.LastError))
		}
		c.out("\n")
	}
	return nil
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func cmdExport(c *ctx) error {
	if len(c.p.pos) > 1 {
		return usagef("expected export [FILE]")
	}
	if len(c.p.pos) == 0 || c.p.pos[0] == "-" {
		return c.store.Export(c, c.env.Stdout)
	}
	return exportFile(c, c.p.pos[0])
}

// exportFile writes the export to a new file: O_EXCL refuses an existing
// file (a backup is never overwritten) and any link, dangling or not, so
// nothing is written through one. The export is terminal-safe JSON, so
// `cat` of the file is safe. On error nothing is left at path.
func exportFile(c *ctx, path string) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(err, fs.ErrExist) {
		if fi, lerr := os.Lstat(path); lerr == nil && fi.Mode()&fs.ModeSymlink != 0 {
			return fmt.Errorf("export: %s is a symbolic link; odekmem does not write through links: remove it or choose another path", path)
		}
		return fmt.Errorf("export: %s exists already; odekmem never overwrites it: choose a new file name, or remove it first", path)
	}
	if err != nil {
		return fmt.Errorf("export: %w", err)
	}
	err = c.store.Export(c, f)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(path)
		return fmt.Errorf("export: %s: %w", path, err)
	}
	return nil
}

func cmdTUI(c *ctx) error {
	if c.env.RunTUI == nil {
		return cmdStats(c)
	}
	procstart.RestoreGC() // a long-lived process (procstart.DeferGC)
	return c.env.RunTUI(c, c.store, c.settings, "")
}

func cmdInit(c *ctx) error {
	if len(c.p.pos) != 0 {
		return usagef("init takes no arguments")
	}
	dir := c.settings.StoreDir()
	_, statErr := os.Lstat(dir)
	existed := statErr == nil
	st, err := openStore(c, dir)
	if err != nil {
		return err
	}
	// run reports damage found at open (exit status 3) after this returns.
	c.store = st
	defer st.Close(context.Background())
	if c.json {
		return c.emitJSON(map[string]any{"store": dir, "created": !existed})
	}
	if existed {
		stats, err := st.Stats(context.Background())
		if err != nil {
			return err
		}
		c.out("store %s exists already (%d live atoms); nothing changed\n", dir, stats.Live)
		return nil
	}
	c.out("created store %s\n", dir)
	c.out("%s", nextSteps(c))
	return nil
}

// nextSteps is what init suggests: connect an agent, add a note, review.
func nextSteps(c *ctx) string {
	home := ""
	if c.p.home != "" {
		home = " --home " + shellQuote(c.p.home)
	}
	rows := [][2]string{
		{"odekmem" + home + " setup claude-code", "connect your agent (or: " + strings.Join(agentsetup.Agents[1:], ", ") + ")"},
		{"odekmem" + home + ` add "We use tabs"`, "remember a note by hand"},
		{"odekmem" + home, "review what your agent remembers in the TUI"},
		{"odekmem help", "every verb; odekmem demo tries a store full of examples"},
	}
	w := 0
	for _, r := range rows {
		w = max(w, len(r[0]))
	}
	var b strings.Builder
	b.WriteString("\nNext steps:\n")
	for _, r := range rows {
		fmt.Fprintf(&b, "  %-*s  %s\n", w, r[0], r[1])
	}
	return b.String()
}

// shellQuote quotes s for a POSIX shell when it needs it.
func shellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r == '/' || r == '.' || r == '-' || r == '_' || r == '~' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z')
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// stringKeys is m with its keys as plain strings.
func stringKeys[K ~string](m map[K]int) map[string]int {
	out := make(map[string]int, len(m))
	for k, v := range m {
		out[string(k)] = v
	}
	return out
}
