package cli

import (
	"fmt"
	"io"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// Help is cobra's help, laid out by odekmem: wrapped to the terminal,
// verbs by group, flags with their placeholders, global flags and
// examples under every verb.

// globalFlagHelp is shown under every verb's flags.
var globalFlagHelp = [][2]string{
	{"--home DIR", "odek home (default $ODEK_HOME, else ~/.odek); the store is DIR/memory/extended"},
	{"--memory-extended-<field> V", "override one memory.extended setting (see 'odekmem help config')"},
	{"-h, --help", "show this help"},
}

// help is the help function of every command: the overview for the root
// (and the "memory extended" levels), a verb's page otherwise.
func (a *app) help(cmd *cobra.Command, _ []string) {
	if !isVerb(cmd) {
		a.writeOverview()
		return
	}
	out := newTermWriter(a.env.Stdout)
	defer out.Flush()
	printVerbHelp(out, cmd, termWidth(a.env))
}

// writeOverview writes the overview to stdout. It is the command table's
// names and summaries and the topics' summaries, all constants, so it is
// made visible but not searched for credentials: redacting it cost a
// third of `odekmem help` (the credential patterns compiled for nothing).
func (a *app) writeOverview() {
	out := newTermWriter(a.env.Stdout)
	out.own = true
	a.printOverview(out, termWidth(a.env))
	out.Flush()
}

// printOverview is `odekmem help`: the verbs by group, wrapped to width.
func (a *app) printOverview(w io.Writer, width int) {
	fmt.Fprintln(w, "odekmem — see and curate what your coding agent remembers")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Usage:")
	writeDef(w, "  odekmem", "open the review TUI on the configured store", 25, width)
	writeDef(w, "  odekmem <verb> [flags]", "run one verb (odekmem memory extended <verb> is odek's spelling)", 25, width)
	nameW := 0
	for _, c := range a.root.Commands() {
		if isVerb(c) {
			nameW = max(nameW, utf8.RuneCountInString(c.Name()))
		}
	}
	for _, g := range a.root.Groups() {
		var cs []*cobra.Command
		for _, c := range a.root.Commands() {
			if isVerb(c) && !c.Hidden && c.GroupID == g.ID {
				cs = append(cs, c)
			}
		}
		if len(cs) == 0 {
			continue
		}
		fmt.Fprintf(w, "\n%s\n", g.Title)
		for _, c := range cs {
			writeDef(w, "  "+c.Name(), c.Short, nameW+4, width)
		}
	}
	fmt.Fprintln(w, "\nHelp topics (odekmem help <topic>):")
	for _, name := range topicNames() {
		writeDef(w, "  "+name, topics[name].summary, nameW+4, width)
	}
	fmt.Fprintln(w)
	writeWrapped(w, fmt.Sprintf("Global flags go anywhere on the line: --home DIR (default $ODEK_HOME, else ~/.odek) and --memory-extended-<field> V for every memory.extended setting. Exit status: 0 ok, 1 failure, 2 usage error, 3 done but the store was damaged (pieces moved aside into corrupt/), %d done but the scanner blocked the text (see 'odekmem help exit'). Run 'odekmem <verb> --help' for a verb's flags and examples.", ExitBlocked), "", width)
}

func topicNames() []string {
	var out []string
	for name := range topics {
		out = append(out, name)
	}
	sort.Strings(out)
	return out
}

// verbFlags is a verb's own flags, sorted, without --help.
func verbFlags(c *cobra.Command) []*pflag.Flag {
	var out []*pflag.Flag
	c.LocalNonPersistentFlags().VisitAll(func(f *pflag.Flag) {
		if f.Name != "help" && f.Name != "version" && !f.Hidden {
			out = append(out, f)
		}
	})
	return out
}

// flagTerm is "--name" or "--name PLACEHOLDER".
func flagTerm(f *pflag.Flag) string {
	if f.Value.Type() == "bool" {
		return "--" + f.Name
	}
	v := "V"
	if p := f.Annotations[placeholderKey]; len(p) > 0 {
		v = p[0]
	}
	return "--" + f.Name + " " + v
}

// usageLine is "odekmem <verb> <args> [flags]".
func usageLine(c *cobra.Command) string {
	line := "odekmem " + c.Use
	if len(verbFlags(c)) > 0 {
		line += " [flags]"
	}
	return line
}

// printVerbHelp is `odekmem <verb> --help` and `odekmem help <verb>`.
func printVerbHelp(w io.Writer, c *cobra.Command, width int) {
	fmt.Fprintf(w, "Usage: %s\n\n", usageLine(c))
	writeWrapped(w, strings.ToUpper(c.Short[:1])+c.Short[1:]+".", "", width)
	for _, para := range strings.Split(c.Long, "\n\n") {
		if strings.TrimSpace(para) == "" {
			continue
		}
		fmt.Fprintln(w)
		writeWrapped(w, strings.Join(strings.Fields(para), " "), "", width)
	}
	var defs [][2]string
	for _, f := range verbFlags(c) {
		defs = append(defs, [2]string{flagTerm(f), f.Usage})
	}
	termW := 14
	for _, d := range append(defs, globalFlagHelp[0]) {
		termW = max(termW, utf8.RuneCountInString(d[0])+4)
	}
	if len(defs) > 0 {
		fmt.Fprintln(w, "\nFlags:")
		for _, d := range defs {
			writeDef(w, "  "+d[0], d[1], termW, width)
		}
	}
	fmt.Fprintln(w, "\nGlobal flags:")
	for _, d := range globalFlagHelp {
		writeDef(w, "  "+d[0], d[1], termW, width)
	}
	if c.Example != "" {
		fmt.Fprintln(w, "\nExamples:")
		for _, e := range strings.Split(c.Example, "\n") {
			writeExample(w, strings.TrimSpace(e), width)
		}
	}
}

// writeDef writes "term  definition" with the definition wrapped and
// hanging at column col; a term wider than col gets its own line.
func writeDef(w io.Writer, term, def string, col, width int) {
	pad := strings.Repeat(" ", col)
	if utf8.RuneCountInString(term)+2 > col {
		fmt.Fprintln(w, term)
		writeWrapped(w, def, pad, width)
		return
	}
	lines := wrap(def, width-col)
	if len(lines) == 0 {
		fmt.Fprintln(w, term)
		return
	}
	fmt.Fprintf(w, "%s%s%s\n", term, strings.Repeat(" ", col-utf8.RuneCountInString(term)), lines[0])
	for _, l := range lines[1:] {
		fmt.Fprintf(w, "%s%s\n", pad, l)
	}
}

// writeWrapped writes text wrapped to width with every line indented.
func writeWrapped(w io.Writer, text, indent string, width int) {
	for _, l := range wrap(text, width-utf8.RuneCountInString(indent)) {
		fmt.Fprintf(w, "%s%s\n", indent, l)
	}
}

// wrap breaks text into lines of at most width runes at spaces; a word
// longer than width gets a line of its own.
func wrap(text string, width int) []string {
	if width < 20 {
		width = 20
	}
	var lines []string
	var cur strings.Builder
	n := 0
	for _, word := range strings.Fields(text) {
		wl := utf8.RuneCountInString(word)
		if n > 0 && n+1+wl > width {
			lines = append(lines, cur.String())
			cur.Reset()
			n = 0
		}
		if n > 0 {
			cur.WriteByte(' ')
			n++
		}
		cur.WriteString(word)
		n += wl
	}
	if n > 0 {
		lines = append(lines, cur.String())
	}
	return lines
}

// cmdHelp is the help verb: the overview, a verb's page or a topic.
func (a *app) cmdHelp(cmd *cobra.Command, args []string) error {
	if len(args) == 0 {
		a.writeOverview()
		return nil
	}
	out := newTermWriter(a.env.Stdout)
	defer out.Flush()
	width := termWidth(a.env)
	if len(args) > 1 {
		return withVerb(usagef("expected help [verb|topic]"), "help")
	}
	name := args[0]
	if t, ok := topics[name]; ok {
		printTopic(out, t, width)
		return nil
	}
	if c, _, err := cmd.Parent().Find([]string{name}); err == nil && isVerb(c) {
		printVerbHelp(out, c, width)
		return nil
	}
	msg := fmt.Sprintf("no verb or help topic %q", name)
	if s := a.suggest(name); s != "" {
		msg += fmt.Sprintf(" (did you mean %s?)", s)
	} else if s := nearest(name, topicNames()); s != "" {
		msg += fmt.Sprintf(" (did you mean %s?)", s)
	}
	return withVerb(usagef("%s", msg), "help")
}

// writeExample writes a command line indented by two spaces, broken at
// spaces outside quotes with shell line continuations to fit width.
func writeExample(w io.Writer, line string, width int) {
	var words []string
	var cur strings.Builder
	quote := rune(0)
	for _, r := range line {
		switch {
		case quote != 0:
			if r == quote {
				quote = 0
			}
		case r == '\'' || r == '"':
			quote = r
		case r == ' ':
			if cur.Len() > 0 {
				words = append(words, cur.String())
				cur.Reset()
			}
			continue
		}
		cur.WriteRune(r)
	}
	if cur.Len() > 0 {
		words = append(words, cur.String())
	}
	indent := "  "
	n := 0
	var sb strings.Builder
	sb.WriteString(indent)
	n = len(indent)
	for i, word := range words {
		wl := utf8.RuneCountInString(word)
		if i > 0 {
			// Room for the word, and for " \\" if more words follow.
			need := 1 + wl
			if i < len(words)-1 {
				need += 2
			}
			if n+need > width {
				sb.WriteString(" \\\n      ")
				n = 6
			} else {
				sb.WriteByte(' ')
				n++
			}
		}
		sb.WriteString(word)
		n += wl
	}
	fmt.Fprintln(w, sb.String())
}
