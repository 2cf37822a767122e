package cli

import (
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/odekmem/odekmem/internal/agenthook"
	"github.com/odekmem/odekmem/internal/agentsetup"
)

// `odekmem doctor`: whether each agent found will use odekmem, line by
// line, with the fix for each failure. The checks live in
// internal/agentsetup (they read what setup writes).

func (a *app) doctorVerb() *cobra.Command {
	doctor := &cobra.Command{Use: "doctor [agent...]", Short: "check that each agent found will use odekmem, with the fix for each problem", GroupID: "agent",
		Long: `For each agent found (its command on PATH, or its config files): is odekmem's config in place, do
			the commands it names resolve from a clean environment, are the hooks enabled (and, for Codex,
			trusted), does the MCP server answer when started as the agent starts it, and when did a hook
			last run and with what result (from hook.log). Then whether odekmem serve is up. Run it in a
			project to include the project's files. Exit status 1 when a check fails.`,
		Example: "odekmem doctor\nodekmem doctor codex\nodekmem doctor --json"}
	flagsOf(doctor).shared("json")
	return a.verb(doctor, verbDef{run: cmdDoctor, store: noStore})
}

func cmdDoctor(c *ctx) error {
	for _, ag := range c.p.pos {
		if !slices.Contains(agentsetup.Agents, ag) {
			return usagef("unknown agent %q: supported %s", ag, strings.Join(agentsetup.Agents, ", "))
		}
	}
	home, err := filepath.Abs(c.settings.Home)
	if err != nil {
		return err
	}
	o := agentsetup.DoctorOptions{Getenv: c.env.Getenv, OdekHome: home, Agents: c.p.pos}
	if wd, err := os.Getwd(); err == nil {
		o.ProjectDir = agenthook.ProjectRoot(wd)
	}
	rep := agentsetup.Doctor(c, o)
	if c.json {
		if err := c.emitJSON(rep); err != nil {
			return err
		}
	} else {
		printDoctor(c, rep)
	}
	if !rep.OK() {
		return quietError{}
	}
	return nil
}

func printDoctor(c *ctx, rep agentsetup.Report) {
	c.out("odekmem doctor — store %s\n", rep.Store)
	printCheck(c, rep.StoreCheck)
	if len(rep.Agents) == 0 {
		c.out("\nno agent found (none of claude, codex, gemini, cursor, code, zed on PATH, and no config files): odekmem setup <agent>\n")
	}
	for _, a := range rep.Agents {
		c.out("\n%s — %s\n", a.Agent, a.Found)
		for _, ch := range a.Checks {
			printCheck(c, ch)
		}
	}
	c.out("\n")
	printCheck(c, rep.Serve)
}

func printCheck(c *ctx, ch agentsetup.Check) {
	mark := "✔"
	switch {
	case ch.Info:
		mark = "·"
	case !ch.OK:
		mark = "✘"
	}
	c.out("  %s %-10s%s\n", mark, ch.Check, ch.Detail)
	if ch.Fix != "" && !ch.OK {
		c.out("    %-10sfix: %s\n", "", ch.Fix)
	}
}

// quietError ends a run with exit status 1 and no message (the report
// said it).
type quietError struct{}

func (quietError) Error() string { return "" }
