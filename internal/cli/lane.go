package cli

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/odekmem/odekmem/internal/scan"
	"github.com/odekmem/odekmem/memcore"
)

// The lane: candidates from the person's own messages the judgement was
// not sure about ("from your messages — keep?"). Never recalled until
// kept.

func (a *app) laneVerbs() []*cobra.Command {
	lane := &cobra.Command{Use: "lane", Short: "list what waits from your messages (keep or drop)", GroupID: "review",
		Long: `Sentences from your own messages that per-turn extraction was not sure about: a command that may be
			meant for one task, a line right under something you pasted, a memory LLM's memory whose quote did not
			check out. They are not trusted and never recalled; odekmem keep stores one as your own (user_approved,
			with the message it came from as evidence), odekmem drop removes it. The TUI's pane 9 does the same
			with c, n and S.`,
		Example: "odekmem lane\nodekmem lane --session 6a1f2b --json"}
	flagsOf(lane).with("session", "only entries from this agent session").shared("json")
	keep := &cobra.Command{Use: "keep <lane-id>", Short: "keep a lane entry as your own memory (--session: all of a session)", GroupID: "review",
		Example: "odekmem lane\nodekmem keep 4c1d\nodekmem keep --session 6a1f2b"}
	flagsOf(keep).with("session", "keep every entry from this agent session").shared("json")
	drop := &cobra.Command{Use: "drop <lane-id>", Short: "drop a lane entry", GroupID: "review", Example: "odekmem drop 4c1d"}
	flagsOf(drop).shared("json")
	return []*cobra.Command{
		a.verb(lane, verbDef{run: cmdLane}),
		a.verb(keep, verbDef{run: cmdKeep, store: writesStore}),
		a.verb(drop, verbDef{run: cmdDrop, store: writesStore}),
	}
}
func cmdLane(c *ctx) error {
	var sessions []string
	if s := c.p.flags["session"]; s != "" {
		sessions = append(sessions, s)
	}
	entries, err := c.store.Lane(c, sessions...)
	if err != nil {
		return err
	}
	if c.json {
		if entries == nil {
			entries = []memcore.LaneEntry{}
		}
		return c.emitJSON(entries)
	}
	tw := c.table("ID\tTYPE\tSESSION\tWHY\tTEXT")
	for _, e := range entries {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", e.ID, e.Type, clip(e.Context.SessionID, 12), clip(scan.Visible(e.Why), 40), clip(scan.Visible(e.Text), 70))
	}
	tw.Flush()
	if len(entries) == 0 {
		fmt.Fprintln(c.env.Stderr, "(nothing waits in the lane)")
	}
	return nil
}

func cmdKeep(c *ctx) error {
	sess := c.p.flags["session"]
	var rs []memcore.AddResult
	var err error
	switch {
	case sess != "" && len(c.p.pos) == 0:
		var ids []string
		ids, err = sessionLane(c, sess)
		if err == nil {
			rs, _, err = c.store.Keep(c, ids...)
		}
	case sess == "" && len(c.p.pos) == 1:
		rs, _, err = c.store.Keep(c, c.p.pos[0])
	default:
		return usagef("expected keep <lane-id> or keep --session S")
	}
	if err != nil && len(rs) == 0 {
		return err
	}
	if c.json {
		return c.emitJSON(map[string]any{"kept": rs})
	}
	for _, r := range rs {
		what := "kept as your own"
		if r.Quarantined {
			what = "held in quarantine (" + r.Reason + ")"
		}
		c.out("%s %s: %s\n", what, r.Atom.ID, clip(scan.Visible(r.Atom.Text), 70))
	}
	return err
}

// sessionLane returns the ids of a session's lane entries, for keep
// --session; a session with none is ErrNotFound.
func sessionLane(c *ctx, session string) ([]string, error) {
	lane, err := c.store.Lane(c, session)
	if err != nil {
		return nil, err
	}
	if len(lane) == 0 {
		return nil, fmt.Errorf("%w: no lane entry from session %s", memcore.ErrNotFound, session)
	}
	ids := make([]string, len(lane))
	for i, e := range lane {
		ids[i] = e.ID
	}
	return ids, nil
}

func cmdDrop(c *ctx) error {
	if err := needArgs(c, 1, "drop <lane-id>"); err != nil {
		return err
	}
	e, _, err := c.store.Drop(c, c.p.pos[0])
	if err != nil {
		return err
	}
	if c.json {
		return c.emitJSON(map[string]any{"dropped": e})
	}
	c.out("dropped %s: %s\n", e.ID, clip(strings.TrimSpace(scan.Visible(e.Text)), 70))
	return nil
}
