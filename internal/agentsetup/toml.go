package agentsetup

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/odekmem/odekmem/internal/lazyre"
)

// A careful, minimal TOML merge for Codex's config.toml: odekmem owns the
// table [mcp_servers.odekmem] and every table below it
// ([mcp_servers.odekmem.env], [mcp_servers.odekmem.tools.<tool>]) and
// nothing else. Its tables are replaced whole where the first of them was
// (appended when there is none); every other line stays byte for byte.
// Nothing of an existing odekmem table is carried over but its timeouts:
// an env (ODEK_HOME), cwd or extra argument that a cloned repository's
// .codex/config.toml sets could make the server serve that repository's
// pre-seeded store as the person's memory. Files whose structure this
// cannot follow safely (odekmem defined inline or with dotted keys,
// unbalanced brackets or unterminated multi-line strings) are refused.

var (
	headerRe = lazyre.New(`^\s*\[\[?\s*([^\]]*?)\s*\]\]?\s*(#.*)?$`)
	// ourTable matches odekmem's table and the tables below it.
	ourTable = lazyre.New(`^mcp_servers\s*\.\s*("odekmem"|'odekmem'|odekmem)(\s*\..*)?$`)
	ourMain  = lazyre.New(`^mcp_servers\s*\.\s*("odekmem"|'odekmem'|odekmem)$`)
	keyRe    = lazyre.New(`^\s*("[^"]*"|'[^']*'|[A-Za-z0-9_-]+)\s*[=.]`)
	inlineRe = lazyre.New(`^\s*("odekmem"|'odekmem'|odekmem)\s*[=.]`)
	dottedRe = lazyre.New(`^\s*mcp_servers\s*\.\s*("odekmem"|'odekmem'|odekmem)\b`)
)

// keptKeys are the keys of an existing [mcp_servers.odekmem] carried over:
// they change how long Codex waits, not what runs.
var keptKeys = map[string]bool{"startup_timeout_sec": true, "startup_timeout_ms": true, "tool_timeout_sec": true}

// ourKeys are the keys setup writes itself (replacing them is no news).
var ourKeys = map[string]bool{"command": true, "args": true}

func tomlString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\u%04X`, r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// codexEntry is odekmem's server in config.toml.
type codexEntry struct {
	exe    string
	args   []any
	tools  []string // pre-approved: approval_mode = "approve"
	remove bool
}

func (e codexEntry) table(kept []string) string {
	var as []string
	for _, a := range e.args {
		as = append(as, tomlString(a.(string)))
	}
	var b strings.Builder
	b.WriteString("[mcp_servers.odekmem]\ncommand = " + tomlString(e.exe) + "\nargs = [" + strings.Join(as, ", ") + "]\n")
	for _, k := range kept {
		b.WriteString(k)
	}
	for _, t := range e.tools {
		fmt.Fprintf(&b, "\n[mcp_servers.odekmem.tools.%s]\napproval_mode = \"approve\"\n", t)
	}
	return b.String()
}

// mergeCodexTOML returns the file with odekmem's tables set (or removed),
// the tables, and notes on what an existing entry had that is dropped.
func mergeCodexTOML(before []byte, e codexEntry) ([]byte, string, []string, error) {
	text := string(before)
	lines := strings.SplitAfter(text, "\n")
	if len(lines) > 0 && lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	// Each line's table, and whether it belongs to odekmem.
	ours := make([]bool, len(lines))
	mainTable := make([]bool, len(lines))
	first := -1
	section, sub := "", "" // sub: the part below odekmem of a table to report
	in, inMain := false, false
	inMulti := "" // the delimiter of an open multi-line string
	depth := 0    // open [ of a multi-line array
	var dropped []string
	var kept []string
	for i, ln := range lines {
		trim := strings.TrimSpace(ln)
		cont := inMulti != "" || depth > 0
		if inMulti != "" {
			if strings.Count(ln, inMulti)%2 == 1 {
				inMulti = ""
			}
		} else if depth > 0 {
			depth += bracketDelta(ln)
		} else if strings.HasPrefix(trim, "[") {
			m := headerRe.FindStringSubmatch(trim)
			if m == nil {
				return nil, "", nil, fmt.Errorf("line %d: malformed table header %q", i+1, trim)
			}
			section = m[1]
			in = ourTable.MatchString(section)
			inMain = ourMain.MatchString(section)
			if in && first < 0 {
				first = i
			}
			sub = ""
			if in && !inMain {
				sub = strings.TrimSpace(section[strings.Index(section, "odekmem")+len("odekmem"):])
				sub = strings.TrimSpace(strings.TrimPrefix(strings.TrimLeft(sub, `"'`), "."))
				if t, ok := strings.CutPrefix(sub, "tools."); ok && slices.Contains(e.tools, strings.Trim(strings.TrimSpace(t), `"'`)) {
					sub = "" // one of odekmem's approvals: replaced by setup's own
				}
			}
		} else if trim != "" && !strings.HasPrefix(trim, "#") {
			if !strings.Contains(ln, "=") {
				return nil, "", nil, fmt.Errorf("line %d is neither a table, a key = value nor a comment: %q", i+1, trim)
			}
			if section == "mcp_servers" && inlineRe.MatchString(ln) || section == "" && dottedRe.MatchString(ln) {
				return nil, "", nil, fmt.Errorf("line %d defines odekmem in a form this merge does not edit; remove it or edit it by hand", i+1)
			}
			if in && sub != "" && !cont {
				dropped = append(dropped, "["+section+"] "+trim)
			}
			if inMain && !cont {
				if m := keyRe.FindStringSubmatch(ln); m != nil {
					k := strings.Trim(m[1], `"'`)
					switch {
					case keptKeys[k] && !strings.Contains(strings.TrimPrefix(ln, m[0]), "["):
						kept = append(kept, ln)
					case !ourKeys[k]:
						dropped = append(dropped, strings.TrimSpace(ln))
					}
				}
			}
			for _, d := range []string{`"""`, `'''`} {
				if strings.Count(ln, d)%2 == 1 {
					inMulti = d
				}
			}
			if inMulti == "" {
				depth += bracketDelta(ln)
				if depth < 0 {
					return nil, "", nil, fmt.Errorf("line %d: unbalanced ]", i+1)
				}
			}
		}
		ours[i] = in
		mainTable[i] = inMain
	}
	if inMulti != "" {
		return nil, "", nil, errors.New("unterminated multi-line string")
	}
	if depth != 0 {
		return nil, "", nil, errors.New("unterminated array")
	}
	table := e.table(kept)
	var out strings.Builder
	if first < 0 {
		if e.remove {
			return before, "", nil, nil
		}
		out.WriteString(text)
		if len(text) > 0 && !strings.HasSuffix(text, "\n") {
			out.WriteByte('\n')
		}
		if len(strings.TrimSpace(text)) > 0 {
			out.WriteByte('\n')
		}
		out.WriteString(table)
		return []byte(out.String()), table, nil, nil
	}
	for i := 0; i < first; i++ {
		out.WriteString(lines[i])
	}
	rest := ""
	var b strings.Builder
	for i := first; i < len(lines); i++ {
		if !ours[i] {
			b.WriteString(lines[i])
		}
	}
	rest = b.String()
	if e.remove {
		// Drop the blank line that separated the removed tables.
		s := out.String()
		if strings.TrimSpace(rest) == "" {
			s = strings.TrimRight(s, "\n")
			if s != "" {
				s += "\n"
			}
			return []byte(s), "", nil, nil
		}
		return []byte(s + rest), "", nil, nil
	}
	out.WriteString(table)
	if strings.TrimSpace(rest) != "" {
		out.WriteString("\n")
		out.WriteString(strings.TrimLeft(rest, "\n"))
	}
	var notes []string
	if len(dropped) > 0 {
		notes = append(notes, "config.toml: replaced the existing [mcp_servers.odekmem], dropping "+strings.Join(dropped, ", ")+
			": none is carried over, since an env, cwd or argument could change which store is served")
	}
	return []byte(out.String()), table, notes, nil
}

// bracketDelta counts [ minus ] outside strings and comments on a line.
func bracketDelta(ln string) int {
	d := 0
	var q rune
	for i, r := range ln {
		switch {
		case q != 0:
			if r == q && (q == '\'' || i == 0 || ln[i-1] != '\\') {
				q = 0
			}
		case r == '"' || r == '\'':
			q = r
		case r == '#':
			return d
		case r == '[':
			d++
		case r == ']':
			d--
		}
	}
	return d
}
