package cli

import (
	"fmt"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/odekmem/odekmem/memcore"
)

// The superseded-memory verbs: list the contradictions waiting for the
// person, and resolve one.

func (a *app) contradictionVerbs() []*cobra.Command {
	list := &cobra.Command{Use: "contradictions", Short: "list newer memories that replaced older ones, waiting for you", GroupID: "review",
		Long: `When a new trusted memory contradicts an older one on the same subject, the older one is
			marked superseded: kept, but never recalled above the new one. Each pair waits here until you
			resolve it with odekmem resolve.`,
		Example: "odekmem contradictions\nodekmem resolve 4f2a keep-new"}
	flagsOf(list).bool("all", "also list the ones already resolved").shared("json")
	resolve := &cobra.Command{Use: "resolve <id> <how>", Short: "decide a contradiction: keep-new, keep-old or keep-both", GroupID: "review",
		Long: `keep-new: the older memory stays superseded. keep-old: the newer one is superseded instead.
			keep-both: neither is superseded; both are recalled normally.`,
		Example: "odekmem resolve 4f2a keep-both"}
	flagsOf(resolve).shared("json")
	return []*cobra.Command{
		a.verb(list, verbDef{run: cmdContradictions}),
		a.verb(resolve, verbDef{run: cmdResolve, store: writesStore}),
	}
}

// ContradictionEntry is one line of `contradictions --json`.
type ContradictionEntry struct {
	memcore.Contradiction
	OldText string       `json:"old_text"`
	NewText string       `json:"new_text"`
	OldType memcore.Type `json:"old_type"`
	NewType memcore.Type `json:"new_type"`
}

func contradictionEntries(c *ctx, all bool) ([]ContradictionEntry, error) {
	cs, err := c.store.Contradictions(c, all)
	if err != nil {
		return nil, err
	}
	out := []ContradictionEntry{}
	for _, x := range cs {
		e := ContradictionEntry{Contradiction: x}
		if a, _, err := c.store.Get(c, x.Old); err == nil {
			e.OldText, e.OldType = a.Text, a.Type
		}
		if a, _, err := c.store.Get(c, x.New); err == nil {
			e.NewText, e.NewType = a.Text, a.Type
		}
		out = append(out, e)
	}
	return out, nil
}

func cmdContradictions(c *ctx) error {
	list, err := contradictionEntries(c, c.p.bools["all"])
	if err != nil {
		return err
	}
	if c.json {
		return c.emitJSON(list)
	}
	tw := c.table("ID\tSTATE\tOLDER (superseded)\tNEWER")
	for _, e := range list {
		state := "pending"
		if e.Resolution != "" {
			state = e.Resolution
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", e.ID, state, clip(e.OldText, 45), clip(e.NewText, 45))
	}
	tw.Flush()
	if len(list) == 0 {
		fmt.Fprintln(c.env.Stderr, "(no contradictions waiting)")
	}
	return nil
}

func cmdResolve(c *ctx) error {
	if err := needArgs(c, 2, "resolve <contradiction-id> keep-new|keep-old|keep-both"); err != nil {
		return err
	}
	want := strings.ToLower(strings.TrimSpace(c.p.pos[0]))
	cs, err := c.store.Contradictions(c, true)
	if err != nil {
		return err
	}
	var match []string
	for _, x := range cs {
		if strings.HasPrefix(x.ID, want) {
			match = append(match, x.ID)
		}
	}
	switch {
	case want == "":
		return usagef("expected a contradiction id (see odekmem contradictions)")
	case len(match) > 1 && !slices.Contains(match, want):
		return usagef("id %q matches %d contradictions: give more of it", c.p.pos[0], len(match))
	case len(match) == 0:
		return fmt.Errorf("%w: no contradiction %s (see odekmem contradictions)", memcore.ErrNotFound, c.p.pos[0])
	case len(want) < minPrefix && !slices.Contains(match, want):
		return usagef("id %q is too short: give at least %d characters of it", c.p.pos[0], minPrefix)
	}
	id := match[0]
	if slices.Contains(match, want) {
		id = want
	}
	res := c.p.pos[1]
	switch res {
	case memcore.ResolveKeepNew, memcore.ResolveKeepOld, memcore.ResolveKeepBoth:
	default:
		return usagef("resolution must be keep-new, keep-old or keep-both, got %q", res)
	}
	x, _, err := c.store.ResolveContradiction(c, id, res)
	if err != nil {
		return err
	}
	if c.json {
		return c.emitJSON(x)
	}
	c.out("resolved %s: %s\n", x.ID, x.Resolution)
	return nil
}

// checkSupersedes looks for older memories a newly added one replaces and
// says so on stderr.
func checkSupersedes(c *ctx, res memcore.AddResult) {
	if res.Quarantined || res.Refreshed || res.Duplicate {
		return
	}
	for _, x := range res.Contradictions {
		old := x.Old
		if a, _, err := c.store.Get(c, x.Old); err == nil {
			old += " (" + clip(a.Text, 60) + ")"
		}
		c.warn("supersedes %s; decide with odekmem resolve %s keep-new|keep-old|keep-both", old, x.ID[:8])
	}
}
