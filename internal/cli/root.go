package cli

import (
	"context"
	"fmt"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/odekmem/odekmem/internal/config"
)

// app is one run of the command line: the process around it and the
// command tree built for it.
type app struct {
	env  Env
	root *cobra.Command
	// completing is set for cobra's __complete requests: only they
	// register value completion (cobra keeps it in a process-wide map).
	completing bool
}

// groups are the headings of the verb list, in order.
var groups = []*cobra.Group{
	{ID: "curate", Title: "Curate:"},
	{ID: "review", Title: "Review:"},
	{ID: "agent", Title: "Agent:"},
	{ID: "data", Title: "Data:"},
	{ID: "maintenance", Title: "Maintenance:"},
	{ID: "other", Title: "Other:"},
}

func init() {
	cobra.EnableCommandSorting = false // verbs are listed as declared
	cobra.MousetrapHelpText = ""       // started from Explorer on Windows: open the TUI anyway
}

func execute(base context.Context, args []string, env Env) error {
	a := &app{env: env}
	a.completing = len(args) > 0 && (args[0] == cobra.ShellCompRequestCmd || args[0] == cobra.ShellCompNoDescRequestCmd)
	a.root = a.newRoot()
	if !a.completing {
		var err error
		if args, err = a.arrange(args); err != nil {
			return err
		}
	}
	a.root.SetArgs(args)
	a.root.SetOut(env.Stdout)
	a.root.SetErr(env.Stderr)
	a.root.SetIn(env.Stdin)
	_, err := a.root.ExecuteContextC(base)
	return err
}

// newRoot builds the command tree: the verbs, and the same verbs again
// under "memory extended" (odek's spelling).
func (a *app) newRoot() *cobra.Command {
	root := &cobra.Command{
		Use:     "odekmem",
		Short:   "see and curate what your coding agent remembers",
		Args:    cobra.NoArgs,
		Version: version(),
		// Errors and usage are printed by Main, once, in odekmem's words.
		SilenceErrors:     true,
		SilenceUsage:      true,
		CompletionOptions: cobra.CompletionOptions{DisableDefaultCmd: true},
		// "lsit" is two edits from "list" for cobra (no transpositions).
		SuggestionsMinimumDistance: 2,
	}
	root.SetVersionTemplate("odekmem {{.Version}}\n")
	root.SetFlagErrorFunc(flagError)
	root.SetHelpFunc(a.help)
	root.SetHelpCommandGroupID("other")
	root.RunE = a.verb(root, verbDef{run: cmdTUI, store: readsStore}).RunE

	pf := root.PersistentFlags()
	pf.String("home", "", "odek home (default $ODEK_HOME, else ~/.odek); the store is DIR/memory/extended")
	pf.SetAnnotation("home", placeholderKey, []string{"DIR"})
	for _, k := range config.Keys() {
		name := config.FlagName(k)
		pf.String(name, "", "memory.extended."+k)
		f := pf.Lookup(name)
		f.Hidden = true
		if config.IsBoolKey(k) {
			f.NoOptDefVal = "true"
		}
	}

	a.addVerbs(root, true)
	memory := &cobra.Command{Use: "memory", Short: "odek's spelling: odekmem memory extended <verb>", Args: usageArgs("expected memory extended <verb>"),
		RunE: func(*cobra.Command, []string) error { return usagef("expected memory extended <verb>") }}
	extended := &cobra.Command{Use: "extended", Short: "the same verbs, as odek spells them", Args: usageArgs("memory extended needs a verb"),
		RunE: func(*cobra.Command, []string) error { return usagef("memory extended needs a verb") }}
	a.addVerbs(extended, false)
	memory.AddCommand(extended)
	root.AddCommand(memory)
	if a.completing {
		a.registerCompletions(root)
	}
	return root
}

// usageArgs is the Args check of the "memory" and "extended" levels.
func usageArgs(msg string) cobra.PositionalArgs {
	return func(*cobra.Command, []string) error { return usagef("%s", msg) }
}

// addVerbs adds every verb to parent; the hidden tui verb only at the top.
func (a *app) addVerbs(parent *cobra.Command, top bool) {
	parent.AddGroup(groups...)
	var verbs []*cobra.Command
	verbs = append(verbs, a.curateVerbs()...)
	verbs = append(verbs, a.contradictionVerbs()...)
	verbs = append(verbs, a.reviewVerbs()...)
	verbs = append(verbs, a.laneVerbs()...)
	verbs = append(verbs, a.agentVerbs()...)
	verbs = append(verbs, a.dataVerbs()...)
	verbs = append(verbs, a.maintenanceVerbs()...)
	verbs = append(verbs, a.otherVerbs()...)
	for _, v := range verbs {
		if v.Name() == "tui" && !top {
			continue
		}
		parent.AddCommand(v)
	}
	for _, v := range parent.Commands() {
		if v.Name() == "help" {
			parent.SetHelpCommand(v)
		}
	}
}

// verb wires a verb body into cmd: cobra parses, runVerb runs. A verb that
// writes the store gets --create.
func (a *app) verb(cmd *cobra.Command, v verbDef) *cobra.Command {
	if v.store == writesStore {
		flagsOf(cmd).shared("create")
	}
	cmd.RunE = func(cmd *cobra.Command, args []string) error { return a.runVerb(cmd, args, v) }
	return cmd
}

// arrange puts the verb first. Global flags go anywhere on the line, and
// a verb's own flags may come before it ("odekmem --home DIR list",
// "odekmem --create add …"); cobra's lookup would take the word after an
// unknown flag for that flag's value. A word that is no verb is a usage
// error naming it, unless an unknown flag came first: then the flag is
// named (a mistyped global flag is not an unknown command).
func (a *app) arrange(args []string) ([]string, error) {
	takesValue := map[string]bool{"home": true}
	for _, k := range config.Keys() {
		takesValue[config.FlagName(k)] = !config.IsBoolKey(k)
	}
	known := map[string]bool{"help": true, "h": true, "version": true}
	for name := range takesValue {
		known[name] = true
	}
	// A verb's flag takes a value here when it takes one in every verb
	// that has it (--project is a switch of setup).
	allFlags, switches := map[string]bool{}, map[string]bool{}
	for _, c := range a.root.Commands() {
		c.Flags().VisitAll(func(f *pflag.Flag) {
			allFlags[f.Name] = true
			switches[f.Name] = switches[f.Name] || f.Value.Type() == "bool"
		})
	}
	for name := range allFlags {
		if !switches[name] {
			takesValue[name] = true
		}
	}
	args = joinBoolValues(doubleDash(args, known, allFlags, takesValue))
	// words finds the positional words before any "--", skipping flags and
	// the values of the global flags that take one.
	var words []int
	badFlag := ""
	for i := 0; i < len(args); i++ {
		w := args[i]
		if w == "--" {
			break
		}
		if !strings.HasPrefix(w, "-") || w == "-" {
			words = append(words, i)
			continue
		}
		name, _, hasVal := strings.Cut(strings.TrimLeft(w, "-"), "=")
		switch {
		case takesValue[name] && !hasVal:
			i++
		case len(words) > 0:
			// after the verb: cobra parses it
		case !known[name] && !allFlags[name] && badFlag == "":
			badFlag = name
		}
	}
	if len(words) == 0 {
		return args, nil
	}
	verb := args[words[0]]
	take := words[:1]
	if verb == "memory" {
		if len(words) < 2 || args[words[1]] != "extended" {
			return nil, usagef("expected memory extended <verb>")
		}
		if len(words) < 3 || args[words[2]] == "tui" {
			return nil, usagef("memory extended needs a verb")
		}
		verb, take = args[words[2]], words[:3]
	}
	if c, _, err := a.root.Find([]string{verb}); err != nil || c == a.root {
		if badFlag != "" {
			cands := []string{"home", "help", "version"}
			for name := range takesValue {
				cands = append(cands, name)
			}
			return nil, unknownFlag(badFlag, cands)
		}
		return nil, a.unknownCommand(verb)
	}
	out := make([]string, 0, len(args))
	skip := map[int]bool{}
	for _, i := range take {
		out = append(out, args[i])
		skip[i] = true
	}
	for i, w := range args {
		if !skip[i] {
			out = append(out, w)
		}
	}
	return out, nil
}

// doubleDash writes a long flag spelled with one dash ("-json", "-k 5") with
// two, as the hand-written parser accepted it: odekmem has no one-letter
// flags but -h and -v. A flag's value is left alone.
func doubleDash(args []string, known, all, takesValue map[string]bool) []string {
	out := make([]string, 0, len(args))
	for i := 0; i < len(args); i++ {
		w := args[i]
		if w == "--" {
			return append(out, args[i:]...)
		}
		name, _, hasVal := strings.Cut(strings.TrimPrefix(w, "-"), "=")
		if strings.HasPrefix(w, "-") && !strings.HasPrefix(w, "--") && name != "h" && name != "v" && (known[name] || all[name]) {
			w = "-" + w
		}
		out = append(out, w)
		if strings.HasPrefix(w, "--") && takesValue[name] && !hasVal && i+1 < len(args) {
			i++
			out = append(out, args[i])
		}
	}
	return out
}

// joinBoolValues writes "--memory-extended-<bool> false" as
// "--memory-extended-<bool>=false", as the hand-written parser accepted it.
func joinBoolValues(args []string) []string {
	out := make([]string, 0, len(args))
	for i := 0; i < len(args); i++ {
		w := args[i]
		if key, ok := extKey(strings.TrimLeft(w, "-")); ok && strings.HasPrefix(w, "--") && config.IsBoolKey(key) &&
			i+1 < len(args) && (args[i+1] == "true" || args[i+1] == "false") {
			out = append(out, w+"="+args[i+1])
			i++
			continue
		}
		if w == "--" {
			return append(out, args[i:]...)
		}
		out = append(out, w)
	}
	return out
}

// unknownCommand names a word that is no verb: a help topic is pointed at
// help, anything else gets cobra's suggestions.
func (a *app) unknownCommand(word string) error {
	if _, ok := topics[word]; ok {
		return usagef("%q is a help topic, not a verb: run 'odekmem help %s'", word, word)
	}
	msg := fmt.Sprintf("unknown command %q", word)
	if s := a.suggest(word); s != "" {
		msg += fmt.Sprintf(" (did you mean %s?)", s)
	}
	return usagef("%s", msg)
}

// suggest is cobra's suggestions for a mistyped verb (near spellings,
// prefixes, and the SuggestFor words of each verb), the nearest first:
// "a", or "a or b" when they are as near.
func (a *app) suggest(word string) string {
	var out []string
	best := 1 << 30
	for _, s := range a.root.SuggestionsFor(word) {
		if s == word || s == "memory" {
			continue
		}
		switch d := editDistance(word, s); {
		case d < best:
			out, best = []string{s}, d
		case d == best:
			out = append(out, s)
		}
	}
	switch len(out) {
	case 0:
		return ""
	case 1:
		return out[0]
	}
	return strings.Join(out[:len(out)-1], ", ") + " or " + out[len(out)-1]
}

// isVerb reports whether c is a verb of the list (not the root, not the
// "memory extended" levels).
func isVerb(c *cobra.Command) bool {
	return c.HasParent() && !c.HasSubCommands() && c.Name() != cobra.ShellCompRequestCmd && c.Name() != cobra.ShellCompNoDescRequestCmd
}

// Verbs lists every verb's name (for tests and documentation).
func Verbs() []string {
	a := &app{env: Env{}}
	a.root = a.newRoot()
	var out []string
	for _, c := range a.root.Commands() {
		if isVerb(c) {
			out = append(out, c.Name())
		}
	}
	return out
}
