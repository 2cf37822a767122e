package cli

import (
	"fmt"
	"io"
	"sort"
	"strings"
	"unicode/utf8"
)

// flagDocs describes the flags verbs share: value placeholder ("" for a
// switch) and one line of help. A verb may override the line in
// command.flagHelp.
var flagDocs = map[string]struct{ value, help string }{
	"json":         {"", "print JSON (the stable shape in the README) instead of text"},
	"type":         {"T", "atom type: fact, preference, decision, convention, goal, intent, question, file, error (or observation)"},
	"source":       {"S", "source class: user_said, user_approved, inferred, tool_output, file_read, web, mcp, subagent, agent_generated"},
	"project":      {"P", "project (a name or the project directory)"},
	"session":      {"S", "session id"},
	"quarantine":   {"", "list the quarantine instead of live atoms"},
	"confidence":   {"C", "confidence from 0 to 1 (default 1)"},
	"pin":          {"", "pin the atom so eviction never removes it"},
	"k":            {"N", "how many results (default: semantic_search_top_k)"},
	"explain":      {"", "show every part of the score"},
	"print":        {"", "print where the copy is and its stats instead of opening the TUI"},
	"limit":        {"N", "evaluate only the first N questions (0 = all)"},
	"create":       {"", "create the store if it does not exist yet (otherwise a missing store is an error)"},
	"http":         {"ADDR", ""},
	"token-file":   {"FILE", ""},
	"no-token":     {"", ""},
	"as-untrusted": {"", "quarantine every imported atom and queue user-model values as pending reviews, whatever the file claims"},
	"progress":     {"", "report progress on stderr as a line every 2 s, also when stderr is not a terminal"},
}

// globalFlagHelp is shown under every verb's flags.
var globalFlagHelp = [][2]string{
	{"--home DIR", "odek home (default $ODEK_HOME, else ~/.odek); the store is DIR/memory/extended"},
	{"--memory-extended-<field> V", "override one memory.extended setting (see 'odekmem help config')"},
	{"-h, --help", "show this help"},
}

func verbNames() []string {
	var out []string
	for _, c := range commands {
		out = append(out, c.name)
	}
	for name := range topics {
		out = append(out, name)
	}
	return out
}

// groupOrder is the order of verb-list headings.
var groupOrder = []string{"Curate", "Review", "Agent", "Data", "Maintenance", "Other"}

func groupOf(c *command) string {
	if c.group == "" {
		return "Curate"
	}
	return c.group
}

// printHelp is `odekmem help`: the verbs by group, wrapped to width.
func printHelp(w io.Writer, width int) {
	fmt.Fprintln(w, "odekmem — see and curate what your coding agent remembers")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Usage:")
	writeDef(w, "  odekmem", "open the review TUI on the configured store", 25, width)
	writeDef(w, "  odekmem <verb> [flags]", "run one verb (odekmem memory extended <verb> is odek's spelling)", 25, width)
	groups := map[string][]*command{}
	seen := map[string]bool{}
	for _, c := range commands {
		if c.hidden {
			continue
		}
		g := groupOf(c)
		groups[g] = append(groups[g], c)
		seen[g] = true
	}
	order := append([]string(nil), groupOrder...)
	var extra []string
	for g := range seen {
		if !contains(order, g) {
			extra = append(extra, g)
		}
	}
	sort.Strings(extra)
	order = append(order, extra...)
	nameW := 0
	for _, c := range commands {
		nameW = max(nameW, utf8.RuneCountInString(c.name))
	}
	for _, g := range order {
		cs := groups[g]
		if len(cs) == 0 {
			continue
		}
		fmt.Fprintf(w, "\n%s:\n", g)
		for _, c := range cs {
			writeDef(w, "  "+c.name, c.summary, nameW+4, width)
		}
	}
	fmt.Fprintln(w, "\nHelp topics (odekmem help <topic>):")
	var tn []string
	for name := range topics {
		tn = append(tn, name)
	}
	sort.Strings(tn)
	for _, name := range tn {
		writeDef(w, "  "+name, topics[name].summary, nameW+4, width)
	}
	fmt.Fprintln(w)
	writeWrapped(w, "Global flags go anywhere on the line: --home DIR (default $ODEK_HOME, else ~/.odek) and --memory-extended-<field> V for every memory.extended setting. Exit status: 0 ok, 1 failure, 2 usage error, 3 done but the store was damaged (pieces moved aside into corrupt/). Run 'odekmem <verb> --help' for a verb's flags and examples.", "", width)
}

func contains(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}

// usageLine is "odekmem <verb> <args> [flags]".
func usageLine(c *command) string {
	parts := []string{"odekmem", c.name}
	if c.args != "" {
		parts = append(parts, c.args)
	}
	if len(c.flags) > 0 || c.store == writesStore {
		parts = append(parts, "[flags]")
	}
	return strings.Join(parts, " ")
}

// printVerbHelp is `odekmem <verb> --help` and `odekmem help <verb>`.
func printVerbHelp(w io.Writer, c *command, width int) {
	fmt.Fprintf(w, "Usage: %s\n\n", usageLine(c))
	writeWrapped(w, strings.ToUpper(c.summary[:1])+c.summary[1:]+".", "", width)
	for _, para := range strings.Split(c.about, "\n\n") {
		if strings.TrimSpace(para) == "" {
			continue
		}
		fmt.Fprintln(w)
		writeWrapped(w, strings.Join(strings.Fields(para), " "), "", width)
	}
	names := make([]string, 0, len(c.flags)+1)
	for name := range c.flags {
		names = append(names, name)
	}
	if c.store == writesStore {
		names = append(names, "create")
	}
	sort.Strings(names)
	var defs [][2]string
	for _, name := range names {
		doc := flagDocs[name]
		takes := c.flags[name]
		term := "--" + name
		if takes {
			v := doc.value
			if v == "" {
				v = "V"
			}
			term += " " + v
		}
		help := doc.help
		if h, ok := c.flagHelp[name]; ok {
			help = h
		}
		defs = append(defs, [2]string{term, help})
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
	if len(c.examples) > 0 {
		fmt.Fprintln(w, "\nExamples:")
		for _, e := range c.examples {
			writeExample(w, e, width)
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

func cmdHelp(c *ctx) error {
	width := termWidth(c.env)
	if len(c.p.pos) == 0 {
		printHelp(c.env.Stdout, width)
		return nil
	}
	if len(c.p.pos) > 1 {
		return usagef("expected help [verb|topic]")
	}
	name := c.p.pos[0]
	if cmd := findCommand(name); cmd != nil {
		printVerbHelp(c.env.Stdout, cmd, width)
		return nil
	}
	if t, ok := topics[name]; ok {
		printTopic(c.env.Stdout, t, width)
		return nil
	}
	msg := fmt.Sprintf("no verb or help topic %q", name)
	if s := nearest(name, verbNames()); s != "" {
		msg += fmt.Sprintf(" (did you mean %s?)", s)
	}
	return usagef("%s", msg)
}

// Verbs lists every verb's name (for tests and documentation).
func Verbs() []string {
	var out []string
	for _, c := range commands {
		out = append(out, c.name)
	}
	return out
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
