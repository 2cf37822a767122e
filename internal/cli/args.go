package cli

import (
	"fmt"
	"strings"

	"github.com/odekmem/odekmem/memcore"
)

// usageError is a command-line mistake: exit status 2.
type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

func usagef(format string, a ...any) error { return usageError{fmt.Sprintf(format, a...)} }

// parsed holds one command line: positional arguments, verb flags and the
// global --home and --memory-extended-* flags, which may appear anywhere.
type parsed struct {
	pos   []string
	flags map[string]string
	bools map[string]bool
	home  string
	ext   map[string]string // memory.extended key → value
}

// flagSpec lists a verb's flags: name → true when it takes a value.
type flagSpec map[string]bool

func parseArgs(args []string, spec flagSpec) (*parsed, error) {
	p := &parsed{flags: map[string]string{}, bools: map[string]bool{}, ext: map[string]string{}}
	extKeys := map[string]string{}
	for _, k := range memcore.ConfigKeys() {
		extKeys[memcore.FlagName(k)] = k
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
			if memcore.IsBoolKey(key) && !hasVal && (i+1 >= len(args) || (args[i+1] != "true" && args[i+1] != "false")) {
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
				return nil, usagef("unknown flag --%s", name)
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
