package agentsetup

import (
	"errors"
	"fmt"
	"regexp"
	"strings"
)

// A careful, minimal TOML merge for Codex's config.toml: odekmem owns the
// [mcp_servers.odekmem] table and nothing else. The table is replaced in
// place when present and appended otherwise; every other line stays byte
// for byte. Files whose structure this cannot follow safely (odekmem
// defined inline or with dotted keys, the table twice, unbalanced
// brackets or unterminated multi-line strings) are refused.

var (
	headerRe  = regexp.MustCompile(`^\s*\[\[?\s*([^\]]*?)\s*\]\]?\s*(#.*)?$`)
	ourHeader = regexp.MustCompile(`^mcp_servers\s*\.\s*("odekmem"|'odekmem'|odekmem)$`)
	ownKeyRe  = regexp.MustCompile(`^\s*("command"|"args"|command|args)\s*=`)
	inlineRe  = regexp.MustCompile(`^\s*("odekmem"|'odekmem'|odekmem)\s*=`)
	dottedRe  = regexp.MustCompile(`^\s*mcp_servers\s*\.\s*("odekmem"|'odekmem'|odekmem)\b`)
)

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

func codexTable(exe string, args []any) string {
	var as []string
	for _, a := range args {
		as = append(as, tomlString(a.(string)))
	}
	return "[mcp_servers.odekmem]\ncommand = " + tomlString(exe) + "\nargs = [" + strings.Join(as, ", ") + "]\n"
}

// mergeCodexTOML returns the file with odekmem's table set, and the table.
func mergeCodexTOML(before []byte, exe string, args []any) ([]byte, string, error) {
	table := codexTable(exe, args)
	text := string(before)
	lines := strings.SplitAfter(text, "\n")
	if len(lines) > 0 && lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	start, end := -1, -1
	section := ""
	inMulti := "" // the delimiter of an open multi-line string
	depth := 0    // open [ of a multi-line array
	for i, ln := range lines {
		trim := strings.TrimSpace(ln)
		if inMulti != "" {
			if strings.Count(ln, inMulti)%2 == 1 {
				inMulti = ""
			}
			continue
		}
		if depth > 0 {
			depth += bracketDelta(ln)
			continue
		}
		if trim == "" || strings.HasPrefix(trim, "#") {
			continue
		}
		if strings.HasPrefix(trim, "[") {
			m := headerRe.FindStringSubmatch(trim)
			if m == nil {
				return nil, "", fmt.Errorf("line %d: malformed table header %q", i+1, trim)
			}
			section = m[1]
			if start >= 0 && end < 0 {
				end = i // our table's own keys end at the next header (sub-tables stay)
			}
			if ourHeader.MatchString(section) {
				if start >= 0 {
					return nil, "", errors.New("[mcp_servers.odekmem] appears twice")
				}
				start = i
			}
			continue
		}
		if !strings.Contains(ln, "=") {
			return nil, "", fmt.Errorf("line %d is neither a table, a key = value nor a comment: %q", i+1, trim)
		}
		if section == "mcp_servers" && inlineRe.MatchString(ln) || section == "" && dottedRe.MatchString(ln) {
			return nil, "", fmt.Errorf("line %d defines odekmem in a form this merge does not edit; remove it or edit it by hand", i+1)
		}
		for _, d := range []string{`"""`, `'''`} {
			if strings.Count(ln, d)%2 == 1 {
				inMulti = d
			}
		}
		if inMulti == "" {
			depth += bracketDelta(ln)
			if depth < 0 {
				return nil, "", fmt.Errorf("line %d: unbalanced ]", i+1)
			}
		}
	}
	if inMulti != "" {
		return nil, "", errors.New("unterminated multi-line string")
	}
	if depth != 0 {
		return nil, "", errors.New("unterminated array")
	}
	var out strings.Builder
	if start >= 0 {
		if end < 0 {
			end = len(lines)
		}
		// Replace command and args; every other key of the table (env,
		// timeouts, enabled …) and every comment stays.
		out.WriteString(strings.Join(lines[:start+1], ""))
		out.WriteString(strings.TrimPrefix(table, "[mcp_servers.odekmem]\n"))
		for i := start + 1; i < end; i++ {
			if ownKeyRe.MatchString(lines[i]) {
				d := bracketDelta(lines[i])
				for d > 0 && i+1 < end {
					i++
					d += bracketDelta(lines[i])
				}
				continue
			}
			out.WriteString(lines[i])
		}
		out.WriteString(strings.Join(lines[end:], ""))
	} else {
		out.WriteString(text)
		if len(text) > 0 && !strings.HasSuffix(text, "\n") {
			out.WriteByte('\n')
		}
		if len(strings.TrimSpace(text)) > 0 {
			out.WriteByte('\n')
		}
		out.WriteString(table)
	}
	return []byte(out.String()), table, nil
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
