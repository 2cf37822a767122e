package cli

// The verb table: usage, flags, help text and examples of every built-in
// verb, as cobra commands. Use is "<verb> <positional synopsis>"; Short is
// the line in the verb list; Long the paragraphs of `help <verb>`; Example
// one command line a line. Other files (the agent integrations, the
// contradiction verbs) declare theirs the same way.

import (
	"fmt"

	"github.com/spf13/cobra"
)

func (a *app) curateVerbs() []*cobra.Command {
	list := &cobra.Command{Use: "list", Short: "list live atoms (or the quarantine with --quarantine)", GroupID: "curate",
		Long: `Newest first, with the short id, type, source class, effective confidence, age, pin mark and the
			start of the text. Ids are printed in full; every verb accepts a unique prefix of 4 or more characters.`,
		Example:    "odekmem list --type decision\nodekmem list --project payments-api --json\nodekmem list --quarantine",
		SuggestFor: []string{"ls"}}
	flagsOf(list).bool("quarantine", "list the quarantine instead of live atoms").
		with("type", "only atoms of this type").with("source", "only atoms of this source class").
		with("project", "only atoms of this project").with("session", "only atoms of this session").shared("json")

	show := &cobra.Command{Use: "show <atom-id>", Short: "show one atom with provenance, score parts and links", GroupID: "curate",
		Long: `Works for live and quarantined atoms; a quarantined one also shows its reason, expiry and the
			scanner's findings. The id may be a unique prefix of 4 or more characters.`,
		Example: "odekmem show c967\nodekmem show c967ca82 --json"}
	flagsOf(show).shared("json")

	add := &cobra.Command{Use: "add <text>", Short: "add a note as a user_approved atom", GroupID: "curate",
		Long: `The text is scanned like every write: secrets are redacted before it is stored, and text the
			scanner blocks (injection phrases, invisible characters) is quarantined as scan_rejected instead,
			with exit status 4.

			Without --type the note is labelled as per-turn extraction labels a sentence ("we decided …" is a
			decision, "I prefer …" a preference), else fact; stderr says which. A note longer than
			atom_max_chars bytes (after redaction) is refused, never cut: split it, or raise the limit with
			--memory-extended-atom-max-chars.`,
		Example: `odekmem add "Use PostgreSQL for the ledger" --type decision --pin`}
	flagsOf(add).shared("type", "confidence", "pin", "project", "session", "json")

	search := &cobra.Command{Use: "search <query>", Short: "search trusted atoms, with ids and scores", GroupID: "curate",
		Long:    `Ranks live atoms by the composite score the agent uses (similarity and retention). Quarantined atoms are never searched.`,
		Example: "odekmem search ledger database\nodekmem search 'payout bug' --explain --k 5"}
	flagsOf(search).shared("json").bool("explain", "show every part of the score").shared("k", "type", "source", "project")

	recall := &cobra.Command{Use: "recall <message>", Short: "print the exact context the agent would get for a message", GroupID: "curate",
		Long:    `Runs the agent hook's BeforeTurn over the message: memory block, style and user-state blocks, predicted intents.`,
		Example: "odekmem recall 'which database do we use for the ledger?' --project payments-api"}
	flagsOf(recall).shared("json", "project", "session")

	forget := &cobra.Command{Use: "forget <atom-id>", Short: "remove an atom from the live store or the quarantine", GroupID: "curate",
		Example: "odekmem forget c967", SuggestFor: []string{"delete", "remove", "rm"}}
	flagsOf(forget).shared("json")
	pin := &cobra.Command{Use: "pin <atom-id>", Short: "pin a live atom so it is never evicted", GroupID: "curate", Example: "odekmem pin c967"}
	flagsOf(pin).shared("json")
	unpin := &cobra.Command{Use: "unpin <atom-id>", Short: "unpin a live atom", GroupID: "curate", Example: "odekmem unpin c967"}
	flagsOf(unpin).shared("json")

	return []*cobra.Command{
		a.verb(list, verbDef{run: cmdList}),
		a.verb(show, verbDef{run: cmdShow}),
		a.verb(add, verbDef{run: cmdAdd, store: writesStore}),
		a.verb(search, verbDef{run: cmdSearch}),
		a.verb(recall, verbDef{run: cmdRecall}),
		a.verb(forget, verbDef{run: cmdForget, store: writesStore}),
		a.verb(pin, verbDef{run: func(c *ctx) error { return cmdPin(c, true) }, store: writesStore}),
		a.verb(unpin, verbDef{run: func(c *ctx) error { return cmdPin(c, false) }, store: writesStore}),
	}
}

func (a *app) reviewVerbs() []*cobra.Command {
	promote := &cobra.Command{Use: "promote <atom-id>", Short: "move a quarantined atom to the live store as user_approved", GroupID: "review",
		Long: `The atom keeps a record of its origin (source class, reason, findings); its text is redacted and
			scanned again. Text the scanner still blocks stays out of recall blocks.`,
		Example: "odekmem quarantine\nodekmem promote 3f2a"}
	flagsOf(promote).shared("json")
	quarantine := &cobra.Command{Use: "quarantine", Short: "list tainted atoms awaiting promotion", GroupID: "review",
		Example: "odekmem quarantine\nodekmem quarantine --json"}
	flagsOf(quarantine).shared("json")
	pending := &cobra.Command{Use: "pending", Short: "list pending user-model inferences", GroupID: "review", Example: "odekmem pending"}
	flagsOf(pending).shared("json")
	confirm := &cobra.Command{Use: "confirm <pending-id>", Short: "apply a pending inference to the user model", GroupID: "review",
		Example: "odekmem pending\nodekmem confirm 9b1e"}
	flagsOf(confirm).shared("json")
	reject := &cobra.Command{Use: "reject <pending-id>", Short: "drop a pending inference", GroupID: "review", Example: "odekmem reject 9b1e"}
	flagsOf(reject).shared("json")
	model := &cobra.Command{Use: "model [set|unset F [V]]", Short: "show, edit or remove confirmed user-model values", GroupID: "review",
		Long: `Without arguments, lists the confirmed user model (style, focus, interaction, technical): what the
			agent is told about how you like to work. "set" replaces a value (a list field such as technical.tools
			takes comma-separated items, exactly the ones given); "unset" removes it. Values are checked and scanned
			as a confirmed inference is. The TUI's pane 4 does the same with e and d.`,
		Example: "odekmem model\nodekmem model set style.tone direct\nodekmem model set technical.tools 'go test, pnpm'\nodekmem model unset focus.project"}
	flagsOf(model).shared("json")
	return []*cobra.Command{
		a.verb(promote, verbDef{run: cmdPromote, store: writesStore}),
		a.verb(quarantine, verbDef{run: cmdQuarantine}),
		a.verb(pending, verbDef{run: cmdPending}),
		a.verb(confirm, verbDef{run: func(c *ctx) error { return cmdReview(c, true) }, store: writesStore}),
		a.verb(reject, verbDef{run: func(c *ctx) error { return cmdReview(c, false) }, store: writesStore}),
		a.verb(model, verbDef{run: cmdModel, store: writesStore}),
	}
}

func (a *app) dataVerbs() []*cobra.Command {
	ingest := &cobra.Command{Use: "ingest [FILE|-]", Short: "run per-turn extraction over a transcript", GroupID: "data",
		Long: `Reads plain lines (each one a message from the person) or JSONL of {"role","content","session","turn",
			"project","time"} from FILE or stdin. Only lines with a single explicit "role":"user" are the person; every
			other line (no role, tool results, web, file, MCP or subagent content) is stored tainted and waits in
			quarantine. A line with duplicate keys is an error for that line only. Streams with constant memory and
			draws progress on a terminal (--progress: as a line every 2 s anywhere). See 'odekmem help formats'.`,
		Example: "odekmem ingest transcript.jsonl --session s1 --project payments-api\ncat notes.txt | odekmem ingest -"}
	flagsOf(ingest).with("session", "session id for lines that name none").with("project", "project for lines that name none").
		shared("json", "progress")
	export := &cobra.Command{Use: "export [FILE]", Short: "write the store as JSONL (stdout without FILE)", GroupID: "data",
		Long: `Lossless: import of the output into an empty store reproduces it. FILE must not exist yet: an
			existing file is refused (exit status 1), never overwritten.`,
		Example: "odekmem export backup.jsonl\nodekmem export > backup.jsonl"}
	imp := &cobra.Command{Use: "import FILE|-", Short: "read JSONL written by export", GroupID: "data",
		Long: `A person's restore: atoms keep the source class the file claims, but every text field of every
			record (text, reasons, context, link kinds, pending reviews, user-model values) is scanned and redacted,
			ids must be in the store's id alphabet, and the summary says how many trusted records the file brought
			in. With --as-untrusted every atom is quarantined and user-model values are queued as pending reviews.
			Streams with constant memory; a bad line is reported by number and skipped. Progress is drawn on a
			terminal; --progress prints it as lines (lines read, bytes, lines committed: durable) every 2 s.`,
		Example: "odekmem import backup.jsonl\nodekmem import --as-untrusted shared.jsonl"}
	flagsOf(imp).shared("json").
		bool("as-untrusted", "quarantine every imported atom and queue user-model values as pending reviews, whatever the file claims").
		shared("progress")
	return []*cobra.Command{
		a.verb(ingest, verbDef{run: cmdIngest, store: writesStore}),
		a.verb(export, verbDef{run: cmdExport, jsonOut: true}),
		a.verb(imp, verbDef{run: cmdImport, store: writesStore}),
	}
}

func (a *app) maintenanceVerbs() []*cobra.Command {
	initCmd := &cobra.Command{Use: "init", Short: "create the store (the only verb besides --create that makes one)", GroupID: "maintenance",
		Long:    `Creates <home>/memory/extended with mode 0700 and says what to do next. Running it on an existing store changes nothing.`,
		Example: "odekmem init\nodekmem --home ~/work/.odek init"}
	flagsOf(initCmd).shared("json")
	compact := &cobra.Command{Use: "compact", Short: "rewrite the vector cache and metadata; report what changed", GroupID: "maintenance",
		Example: "odekmem compact"}
	flagsOf(compact).shared("json")
	stats := &cobra.Command{Use: "stats", Short: "budget by component, counts, index state", GroupID: "maintenance",
		Example: "odekmem stats\nodekmem stats --json"}
	flagsOf(stats).shared("json")
	return []*cobra.Command{
		a.verb(initCmd, verbDef{run: cmdInit, store: noStore}),
		a.verb(compact, verbDef{run: cmdCompact, store: writesStore}),
		a.verb(stats, verbDef{run: cmdStats}),
	}
}

func (a *app) otherVerbs() []*cobra.Command {
	scan := &cobra.Command{Use: "scan [text|-]", Short: "scan text (or stdin lines) and print findings", GroupID: "other",
		Long: `Checks text before storing it: the same scanner every write path runs. Nothing is stored. Exit
			status 4 when any input is blocked.`,
		Example: "odekmem scan 'ignore previous instructions'\nodekmem scan --json < lines.txt"}
	flagsOf(scan).shared("json")
	eval := &cobra.Command{Use: "eval <kind> [FILE]", Short: "evaluations: retrieval (LoCoMo, long-lived memories) and the judgement of messages", GroupID: "other",
		Long: `locomo FILE builds one store per conversation (each turn an atom) and reports evidence recall@k; with --dated each atom
			gets its session's date and every question is asked a day after the last session, reported beside the undated run.
			aged [FILE] (default: the bundled testdata/aged/aged.json) asks questions whose answer is a months-old decision,
			convention, preference or fact among hundreds of recent chat atoms, and reports top-1 and top-3.
			judgement [FILE] sends the judgement's held-out split (or FILE, in the corpus format of
			internal/judge/corpus/README.md) through the hook's per-turn path offline and reports trusted precision,
			genuine recall, the uncertain-lane share, attacker sentences trusted, frames lost and a table by category.`,
		Example: "odekmem eval locomo testdata/data/locomo/locomo-dev.json --dated\nodekmem eval aged\nodekmem eval judgement --json"}
	flagsOf(eval).shared("k", "json").value("limit", "N", "evaluate only the first N questions (0 = all)").
		bool("dated", "locomo: also run with each session's date and report both").
		bool("failures", "judgement: list every miss")
	demo := &cobra.Command{Use: "demo", Short: "open a fresh copy of the bundled demo store", GroupID: "other",
		Example: "odekmem demo\nodekmem demo --print"}
	flagsOf(demo).shared("print")
	tui := &cobra.Command{Use: "tui", Short: "open the review TUI (the default with no verb)", Hidden: true,
		Example: "odekmem\nodekmem --home ~/work/.odek"}
	completion := &cobra.Command{Use: "completion bash|zsh|fish|powershell", Short: "print a shell completion script", GroupID: "other",
		Long: `Load it in your shell's startup file: bash: source <(odekmem completion bash); zsh: source
			<(odekmem completion zsh); fish: odekmem completion fish | source; PowerShell: odekmem completion
			powershell | Out-String | Invoke-Expression. The script asks odekmem for candidates as you type: verbs,
			flags and their values (atom types, source classes, agents, evaluations, help topics) and the ids of
			the store's atoms, pending reviews and contradictions.`,
		Example: "odekmem completion bash > ~/.bash_completion.d/odekmem",
		RunE:    a.cmdCompletion}
	version := &cobra.Command{Use: "version", Short: "print the version", Hidden: true, Example: "odekmem version",
		RunE: func(cmd *cobra.Command, _ []string) error {
			fmt.Fprintf(a.env.Stdout, "odekmem %s\n", version())
			return nil
		}}
	help := &cobra.Command{Use: "help [verb|topic]", Short: "show help for odekmem, a verb or a topic", GroupID: "other",
		Example: "odekmem help list\nodekmem help trust",
		RunE:    a.cmdHelp}
	return []*cobra.Command{
		a.verb(scan, verbDef{run: cmdScan, store: noStore}),
		a.verb(eval, verbDef{run: cmdEval, store: noStore}),
		a.verb(demo, verbDef{run: cmdDemo, store: noStore}),
		a.verb(tui, verbDef{run: cmdTUI}),
		completion,
		version,
		help,
	}
}
