package cli

import (
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/odekmem/odekmem/internal/config"
)

// usageError is a command-line mistake: exit status 2. verb, when set,
// points the hint at that verb's help.
type usageError struct{ msg, verb string }

func (e usageError) Error() string { return e.msg }

func usagef(format string, a ...any) error { return usageError{msg: fmt.Sprintf(format, a...)} }

// withVerb names the verb in a usage error that does not name one yet.
func withVerb(err error, verb string) error {
	if ue, ok := err.(usageError); ok && ue.verb == "" {
		ue.verb = verb
		return ue
	}
	return err
}

// parsed is one verb's command line as cobra parsed it: positional
// arguments, the verb's flags that were given, and the global --home and
// --memory-extended-* flags.
type parsed struct {
	pos   []string
	flags map[string]string // value flags that were given
	bools map[string]bool   // switches that were given
	home  string
	ext   map[string]string // memory.extended key → value
}

func parsedFrom(cmd *cobra.Command, args []string) *parsed {
	p := &parsed{pos: args, flags: map[string]string{}, bools: map[string]bool{}, ext: map[string]string{}}
	cmd.Flags().Visit(func(f *pflag.Flag) {
		switch key, isExt := extKey(f.Name); {
		case f.Name == "home":
			p.home = f.Value.String()
		case isExt:
			p.ext[key] = f.Value.String()
		case f.Value.Type() == "bool":
			p.bools[f.Name] = f.Value.String() == "true"
		default:
			p.flags[f.Name] = f.Value.String()
		}
	})
	return p
}

// extKey is the memory.extended key of a --memory-extended-<field> flag.
func extKey(flag string) (string, bool) {
	rest, ok := strings.CutPrefix(flag, "memory-extended-")
	if !ok {
		return "", false
	}
	key := strings.ReplaceAll(rest, "-", "_")
	for _, k := range config.Keys() {
		if k == key {
			return k, true
		}
	}
	return "", false
}

// flagDocs describes the flags verbs share: value placeholder ("" for a
// switch) and one line of help.
var flagDocs = map[string]struct{ value, help string }{
	"json":       {"", "print JSON (the stable shapes are in docs/cli.md) instead of text"},
	"type":       {"T", "atom type: fact, preference, decision, convention, goal, intent, question, file, error (or observation)"},
	"source":     {"S", "source class: user_said, user_approved, inferred, tool_output, file_read, web, mcp, subagent, agent_generated"},
	"project":    {"P", "project (a name or the project directory)"},
	"session":    {"S", "session id"},
	"confidence": {"C", "confidence from 0 to 1 (default 1)"},
	"pin":        {"", "pin the atom so eviction never removes it"},
	"k":          {"N", "how many results (default: semantic_search_top_k)"},
	"print":      {"", "print where the copy is and its stats instead of opening the TUI"},
	"create":     {"", "create the store if it does not exist yet (otherwise a missing store is an error)"},
	"progress":   {"", "report progress on stderr as a line every 2 s, also when stderr is not a terminal"},
}

// placeholderKey is the flag annotation holding a value flag's placeholder
// in help ("--type T").
const placeholderKey = "odekmem_placeholder"

// flagSet declares a verb's flags. Every value flag is a string (the verb
// checks and converts it, naming the flag in its message); switches are
// bools.
type flagSet struct{ cmd *cobra.Command }

func flagsOf(cmd *cobra.Command) flagSet { return flagSet{cmd} }

// shared adds flags of flagDocs with their shared help.
func (f flagSet) shared(names ...string) flagSet {
	for _, n := range names {
		d, ok := flagDocs[n]
		if !ok {
			panic("cli: no shared flag " + n)
		}
		f.add(n, d.value, d.help)
	}
	return f
}

// with adds a flag of flagDocs with help of its own.
func (f flagSet) with(name, help string) flagSet {
	f.add(name, flagDocs[name].value, help)
	return f
}

// value adds a flag that takes a value shown as placeholder.
func (f flagSet) value(name, placeholder, help string) flagSet {
	f.add(name, placeholder, help)
	return f
}

// bool adds a switch.
func (f flagSet) bool(name, help string) flagSet {
	f.add(name, "", help)
	return f
}

func (f flagSet) add(name, placeholder, help string) {
	fs := f.cmd.Flags()
	if placeholder == "" {
		fs.Bool(name, false, help)
		return
	}
	fs.String(name, "", help)
	fs.SetAnnotation(name, placeholderKey, []string{placeholder})
}

// flagError turns pflag's parse errors into usage errors in odekmem's
// words, with the nearest spelling of a mistyped flag.
func flagError(cmd *cobra.Command, err error) error {
	var ne *pflag.NotExistError
	var vr *pflag.ValueRequiredError
	var iv *pflag.InvalidValueError
	switch {
	case errors.As(err, &ne):
		name := ne.GetSpecifiedName()
		if sh := ne.GetSpecifiedShortnames(); sh != "" {
			// "-json": odekmem has no one-letter flags but -h.
			name = sh
			if s := nearest(name, flagNames(cmd)); s != "" {
				err = usagef("unknown flag -%s (did you mean --%s?)", name, s)
				break
			}
			err = usagef("unknown flag -%s", name)
			break
		}
		err = unknownFlag(name, flagNames(cmd))
	case errors.As(err, &vr):
		err = usagef("flag --%s needs a value", vr.GetFlag().Name)
	case errors.As(err, &iv):
		err = usagef("--%s: %q is not true or false", iv.GetFlag().Name, iv.GetValue())
	default:
		err = usagef("%s", err.Error())
	}
	if cmd.HasParent() && !cmd.HasSubCommands() {
		return withVerb(err, cmd.Name())
	}
	return err
}

// flagNames lists the flags a command accepts, the hidden
// --memory-extended-* ones included.
func flagNames(cmd *cobra.Command) []string {
	var out []string
	cmd.Flags().VisitAll(func(f *pflag.Flag) { out = append(out, f.Name) })
	cmd.InheritedFlags().VisitAll(func(f *pflag.Flag) { out = append(out, f.Name) })
	return out
}

// unknownFlag names the flag and suggests the nearest one of cands (the
// --memory-extended-* flags only for a name that starts like them).
func unknownFlag(name string, cands []string) error {
	ext := strings.HasPrefix(name, "memory-extended-")
	var keep []string
	for _, c := range cands {
		if strings.HasPrefix(c, "memory-extended-") == ext {
			keep = append(keep, c)
		}
	}
	sort.Strings(keep)
	if s := nearest(name, keep); s != "" {
		return usagef("unknown flag --%s (did you mean --%s?)", name, s)
	}
	return usagef("unknown flag --%s", name)
}

// nearest returns the candidate closest to s by edit distance, or "" when
// none is close enough to be a plausible typo (or s is a prefix of exactly
// one candidate, which is then returned). s itself is never suggested.
func nearest(s string, cands []string) string {
	best, bestD := "", 1<<30
	var prefixed []string
	for _, c := range cands {
		if c == s {
			continue
		}
		if s != "" && strings.HasPrefix(c, s) {
			prefixed = append(prefixed, c)
		}
		if d := editDistance(s, c); d < bestD {
			best, bestD = c, d
		}
	}
	if len(prefixed) == 1 {
		return prefixed[0]
	}
	limit := 2
	if len(s) > 6 {
		limit = 3
	}
	if bestD <= limit && bestD < len(s) {
		return best
	}
	return ""
}

// editDistance is the optimal-string-alignment distance (Levenshtein plus
// adjacent transpositions: "tpye" is one step from "type").
func editDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	if len(ra) > 64 || len(rb) > 64 {
		return 1 << 20
	}
	d := make([][]int, len(ra)+1)
	for i := range d {
		d[i] = make([]int, len(rb)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(ra); i++ {
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(ra)][len(rb)]
}

// intFlag is the whole-number flag --name: def when it is not given, a
// usage error when it is not a number of at least min (1: positive, 0:
// non-negative).
func (c *ctx) intFlag(name string, def, min int) (int, error) {
	s := c.p.flags[name]
	if s == "" {
		return def, nil
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < min {
		what := "a positive integer"
		if min == 0 {
			what = "a non-negative integer"
		}
		return 0, usagef("--%s must be %s, got %q", name, what, s)
	}
	return n, nil
}

// textArg is the words of a verb that takes free text (usage names the
// verb's form), joined with spaces and bounded as boundText bounds them.
func textArg(c *ctx, verb, usage string) (string, error) {
	if len(c.p.pos) == 0 {
		return "", usagef("expected %s", usage)
	}
	text := strings.Join(c.p.pos, " ")
	if !utf8.ValidString(text) {
		// Said, not done silently: the bytes that are not UTF-8 (a
		// Latin-1 file, a cut multibyte character) become U+FFFD.
		text = strings.ToValidUTF8(text, "\uFFFD")
		c.warn("%s: the text has bytes that are not UTF-8; each run of them is kept as \uFFFD (�)", verb)
	}
	return text, boundText(verb, text)
}

// boundText refuses input over maxMessage with an error naming the bound.
func boundText(verb, text string) error {
	if len(text) > maxMessage {
		return fmt.Errorf("%s: the text is %d bytes; at most %d are accepted", verb, len(text), maxMessage)
	}
	return nil
}
