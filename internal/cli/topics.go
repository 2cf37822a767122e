package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/odekmem/odekmem/internal/config"
	"github.com/odekmem/odekmem/memcore"
)

// topic is one `odekmem help <topic>` page. Paragraphs are wrapped to the
// terminal; lines that start with two spaces are printed as they are.
type topic struct {
	summary string
	body    func() string
}

var topics = map[string]topic{
	"trust":   {"the trust model: who is believed, quarantine, approvals, the scanner", func() string { return trustTopic }},
	"config":  {"configuration layers and every memory.extended setting with its default", configTopic},
	"formats": {"the store's files, the export/import JSONL and the ingest transcript", func() string { return formatsTopic }},
	"exit":    {"exit statuses and where errors go", func() string { return exitTopic }},
	"ids":     {"atom and pending-review ids, and the short prefixes the CLI accepts", func() string { return idsTopic }},
}

func printTopic(w io.Writer, t topic, width int) {
	for i, para := range strings.Split(strings.TrimSpace(t.body()), "\n\n") {
		if i > 0 {
			fmt.Fprintln(w)
		}
		var prose []string
		flush := func() {
			if len(prose) > 0 {
				writeWrapped(w, strings.Join(prose, " "), "", width)
				prose = nil
			}
		}
		for _, line := range strings.Split(para, "\n") {
			if strings.HasPrefix(line, "  ") || strings.HasPrefix(line, "- ") {
				flush()
				if strings.HasPrefix(line, "- ") {
					lines := wrap(line[2:], width-4)
					for j, l := range lines {
						if j == 0 {
							fmt.Fprintf(w, "  - %s\n", l)
						} else {
							fmt.Fprintf(w, "    %s\n", l)
						}
					}
					continue
				}
				fmt.Fprintln(w, line)
				continue
			}
			prose = append(prose, strings.TrimSpace(line))
		}
		flush()
	}
}

const trustTopic = `
THE TRUST MODEL

Every atom records where it came from (its source class). Two classes are
trusted and may be recalled into the agent's prompt: user_said (what the
person said, extracted from their own messages) and user_approved (what a
person added or promoted by hand: odekmem add, odekmem promote, the TUI).

Everything else is tainted: inferred, tool_output, file_read, web, mcp,
subagent and agent_generated. A tainted atom lands in quarantine, is never
recalled, and expires after quarantine_ttl_days unless a person promotes it.
An empty or unknown source class counts as tainted: trust is never a default.

- odekmem quarantine lists it; odekmem show <id> shows one entry with its
  findings; odekmem promote <id> makes it user_approved (the origin is kept
  and the text is scanned and redacted again); odekmem forget <id> drops it.
- Inline approval: "odek, remember that" (or "remember the browser output")
  in the person's own message approves entries created since their previous
  message, one unless they say "all"; "odek, remember that <clause>" stores
  the clause as user_said instead. Negated, quoted or reported speech
  approves nothing, and scan-rejected entries are never approved this way.
- The agent's memory tool stores user_said only when the text is a whole
  span of the person's current message that its sentence does not negate;
  anything else is agent_generated and quarantined.
- Text the person pasted rather than said (logs, terminal output, stack
  traces, HTML, JSON, e-mail, web pages, fenced blocks, "> " quotes) is
  not their words: per-turn extraction quarantines what it finds there
  (tool_output, web or file_read, reason "tainted: pasted <kind> …"), the
  memory tool never stores a span of it as user_said, and a message with
  such a paste approves nothing. The tool cannot promote,
  confirm, unpin or edit the user model.

The scanner runs on every write path (extraction, tool, CLI add, import,
user-model values). It blocks invisible and format characters, tag
smuggling, bidi controls, prompt-injection phrases and credentials: a
blocked atom is quarantined with reason "scan_rejected: …". Secrets are
redacted to [REDACTED:kind] before any byte reaches disk.

User-model inferences wait in odekmem pending until a person confirms them;
nothing pending reaches a prompt.

Import is a person's restore, so it keeps the classes a file claims, but
every field of every record is scanned and redacted and the summary says how
many trusted records the file brought in. odekmem import --as-untrusted
quarantines every atom and queues user-model values for review instead.

Ingest: only lines with one explicit "role": "user" (and no tool-result
type) are the person. Lines without a role, tool results, web, file, MCP
and subagent content are stored tainted (tool_output, web, file_read, mcp,
subagent, agent_generated), so they wait in quarantine.

Nothing odekmem prints sends raw control sequences to your terminal: text
output has escape sequences removed and invisible characters spelled out
(⟨U+200B⟩); --json escapes them.
`

const formatsTopic = `
FILES

The store is <home>/memory/extended/ (mode 0700, files 0600), shared with
the odek agent:

  atoms.json             live atoms' metadata (an array; no text)
  chunks/<id>.md         each live atom's text
  quarantine.json        quarantined atoms with text, quarantined_at, reason
  user_model.json        style, technical, focus, interaction; pending_review
  associations.json      links between atoms (id → [ids])
  vectors_meta.json      what the vector cache holds; the cache is rebuilt when it differs
  corrupt/               damaged pieces moved aside when the store was opened

EXPORT AND IMPORT (JSONL, one record per line)

  {"kind":"atom", "id", "source_class", "type", "created_at", "context",
   "pin", "confidence", "text"}
  {"kind":"quarantine", …the atom fields…, "quarantined_at", "reason"}
  {"kind":"user_model", "user_model":{…user_model.json…}}
  {"kind":"link", "a":"<id>", "b":"<id>", "link_kind":"temporal|task|semantic"}

Import streams the file with constant memory (a line is at most 1 MiB),
skips atoms whose id exists, reports a bad line by number and goes on. Ids
must be in the store's id alphabet (see odekmem help ids).

INGEST TRANSCRIPTS

Either plain text (every line is one message from the person) or JSONL,
one message per line:

  {"role":"user", "content":"…", "session":"…", "turn":3, "project":"…", "time":"RFC 3339"}

content may be a string or an array of parts ({"type":"text","text":…}).
A line with a duplicate key (in any letter case) is an error for that line.
A leading byte-order mark is ignored. A line is at most 1 MiB.
`

const exitTopic = `
EXIT STATUS

  0  ok
  1  failure: stderr names the problem (odekmem: no atom 3f…)
  2  usage error: unknown verb or flag (with the nearest spelling), missing argument
  3  the verb did its work, but opening the store found damage that was moved
     aside into corrupt/ or repaired; stderr names every piece, and with --json
     stderr also carries {"store_damage":[{"file","problem","action"}]}
  4  the verb did its work, but the scanner blocked the text: add stored the
     note in quarantine (scan_rejected) instead of the live store, scan found
     a blocking finding in its text or in one of its stdin lines; stdout is
     the verb's usual output and stderr says what was blocked. When the store
     was damaged too, the status is 3.

A read-only verb on a home without a store fails (status 1) with "no store
at …; run odekmem init or pass the right --home". Writing verbs create a
store only with odekmem init or an explicit --create.
`

const idsTopic = `
IDS

Atom ids are 32 lowercase hex digits. Stores written by other programs may
use other ids, but only in the store's id alphabet: lowercase letters,
digits, "-" and "_", starting with a letter or digit, at most 128
characters. Anything else (".tmp-foo", "../x", upper case) is rejected on
import and on load, because ids become file names.

Wherever a verb takes an id you may give any unique prefix of at least 4
characters, as the TUI shows them (odekmem show c967). An ambiguous prefix
fails and lists the candidates. confirm and reject take pending-review ids
(odekmem pending) the same way.
`

func configTopic() string {
	var sb strings.Builder
	sb.WriteString(`
CONFIGURATION

Layers, later wins: ~/.odek/config.json ("memory": {"extended": {…}}) →
ODEK_MEMORY_EXTENDED_<FIELD> environment variables → --memory-extended-<field>
flags. A project's ./odek.json may not set memory, embedding or guard: the
attempt is ignored and reported on stderr. Invalid values fail with an error
naming the field and what it accepts.

`)
	defaults := map[string]any{}
	if b, err := json.Marshal(memcore.DefaultConfig()); err == nil {
		json.Unmarshal(b, &defaults)
	}
	sb.WriteString("  field                              default\n")
	for _, k := range config.Keys() {
		d := "-"
		if v, ok := defaults[k]; ok {
			b, _ := json.Marshal(v)
			d = string(b)
		}
		if k == "decay_half_life_days_by_type" {
			d = "decision/convention/preference/goal/fact 1095, file/error 90"
		}
		fmt.Fprintf(&sb, "  %-34s %s\n", k, d)
	}
	sb.WriteString("\ndocs/configuration.md describes each field.\n")
	return sb.String()
}
