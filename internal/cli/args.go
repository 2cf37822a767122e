package cli

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

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

// withFlag returns a copy of spec with one more flag.
func withFlag(spec flagSpec, name string, takes bool) flagSpec {
	out := flagSpec{name: takes}
	for k, v := range spec {
		out[k] = v
	}
	return out
}

// parsed holds one command line: positional arguments, verb flags and the
// global --home and --memory-extended-* flags, which may appear anywhere.
type parsed struct {
	pos   []string
	flags map[string]string
	bools map[string]bool
	home  string
	ext   map[string]string // memory.extended key → value
	help  bool              // -h or --help
}

// flagSpec lists a verb's flags: name → true when it takes a value.
type flagSpec map[string]bool

func parseArgs(args []string, spec flagSpec) (*parsed, error) {
	p := &parsed{flags: map[string]string{}, bools: map[string]bool{}, ext: map[string]string{}}
	extKeys := map[string]string{}
	for _, k := range config.Keys() {
		extKeys[config.FlagName(k)] = k
	}
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			p.pos = append(p.pos, args[i+1:]...)
			break
		}
		if !strings.HasPrefix(a, "-") || a == "-" {
			p.pos = append(p.pos, a)
			continue
		}
		if a == "-h" || a == "--help" {
			p.help = true
			continue
		}
		name := strings.TrimLeft(a, "-")
		val, hasVal := "", false
		if j := strings.IndexByte(name, '='); j >= 0 {
			name, val, hasVal = name[:j], name[j+1:], true
		}
		next := func() (string, error) {
			if hasVal {
				return val, nil
			}
			if i+1 >= len(args) {
				return "", usagef("flag --%s needs a value", name)
			}
			i++
			return args[i], nil
		}
		switch {
		case name == "home":
			v, err := next()
			if err != nil {
				return nil, err
			}
			p.home = v
		case extKeys[name] != "":
			key := extKeys[name]
			if config.IsBoolKey(key) && !hasVal && (i+1 >= len(args) || (args[i+1] != "true" && args[i+1] != "false")) {
				p.ext[key] = "true"
				continue
			}
			v, err := next()
			if err != nil {
				return nil, err
			}
			p.ext[key] = v
		default:
			takes, ok := spec[name]
			if !ok {
				return nil, unknownFlag(name, spec)
			}
			if takes {
				v, err := next()
				if err != nil {
					return nil, err
				}
				p.flags[name] = v
			} else {
				if hasVal {
					p.bools[name] = val == "true" || val == "1"
				} else {
					p.bools[name] = true
				}
			}
		}
	}
	return p, nil
}

// unknownFlag names the flag and suggests the nearest one the verb has.
func unknownFlag(name string, spec flagSpec) error {
	cands := []string{"home", "help"}
	for k := range spec {
		cands = append(cands, k)
	}
	sort.Strings(cands)
	if strings.HasPrefix(name, "memory-extended-") {
		cands = cands[:0]
		for _, k := range config.Keys() {
			cands = append(cands, config.FlagName(k))
		}
	}
	if s := nearest(name, cands); s != "" {
		return usagef("unknown flag --%s (did you mean --%s?)", name, s)
	}
	return usagef("unknown flag --%s", name)
}

// nearest returns the candidate closest to s by edit distance, or "" when
// none is close enough to be a plausible typo (or s is a prefix of exactly
// one candidate, which is then returned).
func nearest(s string, cands []string) string {
	best, bestD := "", 1<<30
	var prefixed []string
	for _, c := range cands {
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
	return text, boundText(verb, text)
}

// boundText refuses input over maxMessage with an error naming the bound.
func boundText(verb, text string) error {
	if len(text) > maxMessage {
		return fmt.Errorf("%s: the text is %d bytes; at most %d are accepted", verb, len(text), maxMessage)
	}
	return nil
}
