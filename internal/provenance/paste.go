package provenance

import (
	"strings"
	"sync"

	"github.com/odekmem/odekmem/internal/lazyre"
)

// Kind names what a pasted region looks like. It decides the source class
// of what is found there (see Kind.Source).
type Kind string

// Paste kinds.
const (
	KindTerminal Kind = "terminal transcript"
	KindLog      Kind = "log"
	KindTrace    Kind = "stack trace"
	KindTest     Kind = "test or compiler output"
	KindHTML     Kind = "HTML"
	KindJSON     Kind = "JSON"
	KindDiff     Kind = "diff"
	KindTable    Kind = "table"
	KindHTTP     Kind = "HTTP exchange"
	KindEmail    Kind = "e-mail"
	KindWeb      Kind = "web page text"
	KindQuote    Kind = "quoted text"
	KindCode     Kind = "code"
	KindData     Kind = "data"
	KindConfig   Kind = "configuration"
	KindComment  Kind = "code comment"
	KindSQL      Kind = "SQL"
	KindShell    Kind = "shell script"
	KindCSV      Kind = "CSV"
	KindHistory  Kind = "changelog or commit history"
	KindManual   Kind = "manual page"
	KindChat     Kind = "chat message"
	KindChatbot  Kind = "chatbot answer"
	KindDocument Kind = "document"
	KindTicket   Kind = "ticket"
)

// Source is the source class of text found in a paste of this kind:
// a web page or a chatbot's answer is web; a document someone else wrote
// (a mail, a quote, a chat message, a ticket, a changelog, a config file,
// a comment) is file_read; machine output and code are tool_output.
func (k Kind) Source() string {
	switch k {
	case KindHTML, KindWeb, KindChatbot:
		return "web"
	case KindEmail, KindQuote, KindChat, KindDocument, KindTicket, KindManual, KindHistory, KindConfig, KindComment, KindCSV:
		return "file_read"
	}
	return "tool_output" // machine output, code, data, and anything new
}

// machine reports whether a kind is output a program printed line by line
// (a log, a stack trace, test or compiler output).
func (k Kind) machine() bool { return k == KindLog || k == KindTrace || k == KindTest }

var (
	reTerminal = lazyre.New(`^\s*(?:\S+@\S+:\S*\s?[$#%]|PS [A-Za-z]:\\[^>]*>|[$%❯➜λ»]|\(\S+\)\s*\$)\s+\S`)
	reStamp    = lazyre.New(`^\W{0,3}(?:\d{4}[-/]\d{2}[-/]\d{2}[T _]\d{1,2}:\d{2}|\d{1,2}:\d{2}:\d{2}(?:[.,]\d+)?\b|(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) [ \d]\d \d{2}:\d{2}:\d{2}|\d{10}(?:\.\d+)?\s|[IWEF]\d{4} \d{2}:\d{2})`)
	reLevel    = lazyre.New(`^(?:\W{0,3}(?:INFO|WARN|WARNING|ERROR|ERR|DEBUG|TRACE|FATAL|CRITICAL|CRIT|NOTICE|PANIC|SEVERE)\b[\]:|\s]|npm (?:ERR|WARN)!|(?:error|warning|fatal|panic)(?:\[\w+\])?: )`)
	reLevelIn  = lazyre.New(`\[(?i:info|warn|warning|error|err|debug|trace|fatal|critical|notice)\]|\blevel=(?i:info|warn|warning|error|debug|trace|fatal)\b`)
	reLogfmt   = lazyre.New(`(?:\b[\w.]+=(?:"[^"]*"|\S+)\s+){3,}`)
	reTrace    = lazyre.New(`^(?:\s+at \S|\s*File ".+", line \d+|goroutine \d+ \[|panic: |\s*\S+\.go:\d+ \+0x|Exception in thread|\s*Caused by: |\s*\.\.\. \d+ more|\s*[\w.$]*(?:Error|Exception)(?::\s|$)|\s*#\d+\s+0x[0-9a-f]+|\s*\d+: 0x[0-9a-f]+|\s*at .+\(.+:\d+(?::\d+)?\)|\s*\[signal \w+)`)
	reTest     = lazyre.New(`^\s*(?:=== (?:RUN|PAUSE|CONT|NAME)\s|--- (?:FAIL|PASS|SKIP):|(?:ok|FAIL|PASS)\s+\S+\s+[\d.]+s\b|(?:PASS|FAIL)$|FAIL \S+\.\w+$|FAILED \S+::|PASSED \S+::|={3,} .* ={3,}$|[✓✔✗✘×●]\s|\d+ (?:passing|failing|pending)\b|Tests?:\s+\d+|\*\* [A-Z ]+ \*\*$|(?:\./|/|[A-Za-z]:\\)?[\w.\-/\\]+\.[A-Za-z]{1,5}:\d+(?::\d+)?:?(?:\s|$))`)
	reHTML     = lazyre.New(`^\s*<(?:!DOCTYPE|!--|/?[a-zA-Z][\w:-]*(?:\s[^<>]*)?/?>)|<([a-zA-Z][\w-]*)(?:\s[^<>]*)?>[^<]*</([a-zA-Z][\w-]*)>|^\s*<[a-zA-Z][\w:-]*\s+[\w:-]+="`)
	reJSON     = lazyre.New(`^\s*(?:[{\[]\s*(?:"|\{|\[|$)|"[^"\n]{1,80}"\s*:\s*(?:"|\d|-|\{|\[|true|false|null)|[}\]],?\s*$)`)
	reDiff     = lazyre.New(`^(?:diff --git |@@ -\d+(?:,\d+)? \+\d+|(?:\+\+\+|---) (?:[ab]/|/dev/null)|index [0-9a-f]{6,}\.\.)`)
	reTable    = lazyre.New(`^\s*[│|┃+╭╰├].*[│|┃+╮╯┤]\s*$|^\s*[─━═]{3,}|\S {3,}\S+ {3,}\S|\S\t+\S`)
	reHTTP     = lazyre.New(`^(?:(?:GET|POST|PUT|DELETE|PATCH|HEAD|OPTIONS) (?:/|https?://)\S* HTTP/\d|HTTP/\d(?:\.\d)? \d{3}\b)`)
	reBlob     = lazyre.New(`^\s*\S{60,}\s*$`)
	reIndent   = lazyre.New(`^(?: {4,}|\t)\S`)
	reList     = lazyre.New(`^\s*(?:[-*+•]|\d+[.)])\s`)
	reWrote    = lazyre.New(`^\s*(?:On .{6,} wrote:\s*$|-{2,} ?(?i:original message|forwarded message) ?-{2,}|(?i:begin forwarded message):)`)
	reHeader   = lazyre.New(`^(?i:From|To|Cc|Bcc|Subject|Date|Sent|Reply-To):\s+\S`)
	reFrom     = lazyre.New(`^(?i:From):\s+.*(?:\S@\S|<[^>]+>|\[mailto:)`)
	reChrome   = lazyre.New(`(?i)^\s*(?:skip to (?:main )?content|accept (?:all )?cookies|we use cookies|\d+ min(?:ute)? read|table of contents|was this (?:page|article) helpful\??|all rights reserved|copyright ©|© \d{4}|edit this page|share this (?:article|post)|posted (?:by|on) |last (?:updated|modified|edited)(?: on| by)?:? |advertisement|sign up for our newsletter|(?:answered|asked|edited) (?:\w{3} \d{1,2}|\d+ \w+ ago|yesterday)|re: \S)`)
	reCrumb    = lazyre.New(`\S+ [›»] \S+ [›»] \S`)
	reProse    = lazyre.New(`\b[a-z]{2,}\b`)

	// Configuration: a TOML/INI section header, KEY=value (an env file),
	// key = value (INI, TOML).
	reSection = lazyre.New(`^\s*\[\[?[A-Za-z][\w.\-/]*(?:\s+"[^"]*")?\]\]?\s*$`)
	reEnvLine = lazyre.New(`^\s*(?:export\s+)?[A-Z][A-Z0-9_]*=\S*\s*(?:#.*)?$`)
	reKeyEq   = lazyre.New(`^\s*[A-Za-z_][\w.\-]*\s*=\s*(?:"[^"]*"|'[^']*'|[\w.:/\-{}\[\]",@ ]+)\s*$`)
	// A YAML line: a lower-case key (no spaces), a colon, then nothing,
	// a value, or a flow collection; or a list item holding such a key.
	reYAMLKey = lazyre.New(`^\s*(?:-\s+)?[a-z_][\w.\-/]*:(?:\s*$|\s+\S)`)
	reYAMLDoc = lazyre.New(`^(?:---|\.\.\.)\s*$`)
	// Comments of many languages: "//", "/*", " * ", "*/", "<!--", "--",
	// ";", "#", "REM". Judged with the number of words in them.
	reComment = lazyre.New(`^\s*(?://+|/\*+|\*/|<!--|--\s|;+\s|#+\s|#!|%\s|REM\s)`)
	// Dockerfile instructions.
	reDocker = lazyre.New(`^(?:FROM|RUN|CMD|COPY|ADD|ENV|WORKDIR|EXPOSE|ENTRYPOINT|ARG|USER|LABEL|VOLUME|HEALTHCHECK|ONBUILD|SHELL|STOPSIGNAL)\s+\S`)
	// SQL statements.
	reSQL = lazyre.New(`^\s*(?:SELECT\s.+\sFROM\s|SELECT\s\*|INSERT INTO\s|UPDATE\s+\w+\s+SET\s|DELETE FROM\s|CREATE (?:OR REPLACE )?(?:TABLE|INDEX|UNIQUE INDEX|VIEW|FUNCTION|EXTENSION|SCHEMA|TRIGGER|TYPE)\s|ALTER TABLE\s|DROP (?:TABLE|INDEX|VIEW|SCHEMA)\s|GRANT\s.+\sON\s|REVOKE\s|WITH\s+\w+\s+AS\s*\(|COMMENT ON\s|BEGIN;|COMMIT;|ROLLBACK;|(?i:select\s.+\sfrom\s.+;$|insert into\s.+;$|update\s.+\sset\s.+;$))`)
	// Shell: a shebang, shell keywords, or a command line with shell
	// syntax (flags, pipes, redirections, variables).
	reShebang  = lazyre.New(`^#!\S`)
	reShellKw  = lazyre.New(`^\s*(?:set -[euxo]+|export [A-Za-z_]\w*=|(?:if|while|until) \[\[? .*\]\]?;? ?(?:then|do)?$|for \w+ in .+; ?do\b|fi$|done$|then$|else$|esac$|source \S+$)`)
	reShellCmd = lazyre.New(`^\s*(?:sudo |npx |bunx )?(?:apt(?:-get)?|brew|npm|yarn|pnpm|pip3?|go|cargo|docker|kubectl|helm|terraform|git|curl|wget|make|ls|cat|echo|chmod|chown|rm|mkdir|cp|mv|ssh|scp|rsync|tar|grep|sed|awk|find|python3?|node|ruby|java|mvn|gradle|psql|mysql|redis-cli|systemctl|journalctl|openssl|aws|gcloud|az|\./[\w./-]+)\s+\S`)
	reShellSyn = lazyre.New(`(?:^|\s)-{1,2}[A-Za-z][\w-]*|\s\|\s|\s>{1,2}\s?\S|&&|\$\{?[A-Za-z_]|\s\./`)
	// Changelogs, release notes, commits and git history.
	reHistory = lazyre.New(`^(?:#{1,4}\s+\[?v?\d+\.\d+(?:\.\d+)?|#{2,4}\s+\[?(?:Unreleased|Added|Changed|Fixed|Removed|Security|Deprecated|Breaking)\b|\[?v?\d+\.\d+\.\d+\]?(?:\s+\(|\s*[-–—:]|\s*$)|(?:Release|Version|What's new in)\s+v?\d|commit [0-9a-f]{7,40}\b|Author:\s+\S|Date:\s+\S|Merge (?:pull request|branch)\s|[*|]?\s*[0-9a-f]{7,12}\s+(?:\(|-\s|\w+:)|(?:feat|fix|chore|docs|refactor|test|ci|build|perf|style|revert)(?:\([^)]*\))?!?: \S)`)
	// Manual page section headings.
	reManual = lazyre.New(`^(?:NAME|SYNOPSIS|DESCRIPTION|OPTIONS|NOTES|SECURITY|EXAMPLES|EXIT STATUS|ENVIRONMENT|FILES|SEE ALSO|BUGS|AUTHORS?|CAVEATS|HISTORY)\s*$`)
	// A chat client's message header: a name and a time, a bracketed
	// time, a timestamped "name:" line.
	// reSpeaker opens a line of a transcript or a chat with a speaker's
	// role ("Reviewer: LGTM. Going forward …", "Interviewer: …").
	reSpeaker  = lazyre.New(`^(?i:manager|reviewer|interviewer|interviewee|candidate|customer|client|vendor|ceo|cto|cfo|coo|pm|boss|bot|modbot|moderator|recruiter|consultant|contractor|intern|teammate|colleague|co-?worker|auditor|chatgpt|gpt|claude|copilot|gemini|bard|assistant|support|interviewer|speaker\s?\d|participant\s?\d)\s*(?:\([^)]{1,30}\))?:\s+\S`)
	reChatHead = lazyre.New(`^(?:\S[^:]{0,40}?\s+\d{1,2}:\d{2}(?:\s?[AaPp][Mm])?\s*$|[A-Za-z][\w.'\-]*(?:,?\s+[A-Za-z][\w.'\-]*){0,2}\s+\[\d{1,2}:\d{2}(?::\d{2})?(?:\s?[AaPp][Mm])?\](?:\s*$|:\s)|\[(?:\d{1,2}:\d{2}(?::\d{2})?(?:\s?[AaPp][Mm])?|(?:Yesterday|Today|Mon|Tue|Wed|Thu|Fri|Sat|Sun)[^\]]{0,20})\]|\d{1,2}:\d{2}\s?[AaPp][Mm]\s*$|@\w+:\s|@(?:channel|here|everyone)\b)`)
	// A ticket: a key like PLAT-2211 opening the line, or the field
	// labels of a ticket or an issue form.
	reTicket = lazyre.New(`^(?:[A-Z][A-Z0-9]{1,9}-\d+\b|(?:Title|Body|Description|Priority|Acceptance(?: criteria)?|Assignee|Reporter|Status|Labels|Summary|Steps to reproduce|Expected behaviou?r|Actual behaviou?r|Environment)\s*:|#{1,4}\s+(?:Expected|Actual|Steps|Description|Summary)\b)`)
	// A chatbot's answer opens and closes with these.
	reBotOpen   = lazyre.New(`(?i)^\s*(?:great question|good question|certainly|absolutely|of course!|sure!|sure, here|you're right to ask|as an ai|i'd be happy to|happy to help|here's a (?:summary|breakdown|list)|here are some|based on your (?:code|codebase|question|description|message|repo|project))\b`)
	reBotStrong = lazyre.New(`(?i)^\s*(?:great question|good question|certainly!|you're right to ask|as an ai|based on your|here's a (?:summary|breakdown))`)
	reBotClose  = lazyre.New(`(?i)\b(?:i hope this helps|hope this helps|let me know if you(?:'d| would)? (?:like|want|need|have)|feel free to ask|happy coding)\b`)
	// Mail greetings and sign-offs, each alone on its line.
	reGreeting = lazyre.New(`^(?i:hi|hello|hey|dear|hallo|good (?:morning|afternoon|evening))\b[^.!?]{0,40},\s*$`)
	reSignoff  = lazyre.New(`^(?i:thanks|thank you|many thanks|cheers|regards|best|best regards|kind regards|warm regards|sincerely|br|thx|ta|all the best)[,!.]?(?:\s+\S+){0,2}\s*$`)
)

// lineKind is what a single line looks like: a paste kind, or "" for a
// line that reads as the person's prose.
func lineKind(l string) Kind {
	t := strings.TrimSpace(l)
	if t == "" {
		return ""
	}
	// Cheap tests first decide which patterns can match at all: most
	// lines of prose skip every regular expression but a few anchored
	// ones.
	lead := t[0]
	digitLead := lead >= '0' && lead <= '9' || lead == '['
	symbolLead := !(lead >= 'a' && lead <= 'z' || lead >= 'A' && lead <= 'Z')
	upperLead := lead >= 'A' && lead <= 'Z'
	switch {
	case (symbolLead || strings.ContainsAny(t, "@$%#>")) && reTerminal.MatchString(l):
		return KindTerminal
	case reTrace.MatchString(l), strings.Contains(t, "Traceback (most recent call last)"):
		return KindTrace
	case reTest.MatchString(l):
		return KindTest
	case (digitLead || symbolLead || strings.HasPrefix(t, "Jan") || len(t) > 3) && reStamp.MatchString(l),
		reLevel.MatchString(l),
		strings.ContainsAny(t, "[=") && reLevelIn.MatchString(l),
		strings.Count(t, "=") >= 3 && reLogfmt.MatchString(l):
		return KindLog
	case strings.ContainsAny(t[:1], "d@+-i") && reDiff.MatchString(l):
		return KindDiff
	case (lead == 'H' || lead == 'G' || lead == 'P' || lead == 'D' || lead == 'O') && reHTTP.MatchString(l):
		return KindHTTP
	case strings.ContainsRune(t, '<') && reHTML.MatchString(l):
		return KindHTML
	case strings.ContainsAny(t[:1], "{}[]\"") && reJSON.MatchString(l):
		return KindJSON
	case (symbolLead || strings.Contains(t, "   ") || strings.ContainsRune(t, '\t')) && reTable.MatchString(l):
		return KindTable
	case len(t) >= 60 && reBlob.MatchString(l):
		return KindData
	case reIndent.MatchString(l) && !reList.MatchString(l):
		return KindCode
	case symbolLead && isComment(t):
		return KindComment
	case upperLead && reDocker.MatchString(t):
		return KindCode
	case sqlish(t) && reSQL.MatchString(t):
		return KindSQL
	case lead == '#' && reShebang.MatchString(t), shellWords()[firstField(t)] && (reShellKw.MatchString(t) ||
		reShellCmd.MatchString(t) && reShellSyn.MatchString(t) && !sentenceLike(t)):
		return KindShell
	case lead == '[' && reSection.MatchString(t), upperLead && strings.IndexByte(t, '=') > 0 && reEnvLine.MatchString(t):
		return KindConfig
	case historyLead(t) && reHistory.MatchString(t):
		return KindHistory
	case upperLead && len(t) <= 12 && reManual.MatchString(t):
		return KindManual
	case (lead == '@' || lead == '[' || strings.IndexByte(t, ':') > 0 && strings.ContainsAny(t, "0123456789")) && reChatHead.MatchString(t):
		return KindChat
	case strings.Contains(t, "@channel") || strings.Contains(t, "@here") || strings.Contains(t, "@everyone"):
		return KindChat
	case strings.IndexByte(t, ':') > 0 && reSpeaker.MatchString(t):
		return KindChat
	case (upperLead || lead == '#') && reTicket.MatchString(t):
		return KindTicket
	}
	return ""
}

// shellWords open a shell line: keywords and commands (after sudo, npx).
var shellWords = sync.OnceValue(func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`set export if while until for fi done then else esac source sudo npx bunx apt apt-get brew npm yarn pnpm pip pip3 go cargo docker kubectl helm terraform git curl wget make ls cat echo chmod chown rm mkdir cp mv ssh scp rsync tar grep sed awk find python python3 node ruby java mvn gradle psql mysql redis-cli systemctl journalctl openssl aws gcloud az`) {
		m[w] = true
	}
	return m
})

// firstField is the first white-space separated word of t, or a "./"
// path's marker.
func firstField(t string) string {
	if strings.HasPrefix(t, "./") {
		return "./"
	}
	if i := strings.IndexAny(t, " \t"); i > 0 {
		return t[:i]
	}
	return t
}

// sqlish reports whether t may be SQL: an upper-case keyword or a
// statement's closing semicolon.
func sqlish(t string) bool {
	if strings.HasSuffix(t, ";") {
		return true
	}
	for _, k := range []string{"SELECT", "INSERT", "UPDATE", "DELETE", "CREATE", "ALTER", "DROP", "GRANT", "REVOKE", "WITH", "COMMENT", "BEGIN", "COMMIT", "ROLLBACK"} {
		if strings.HasPrefix(t, k) {
			return true
		}
	}
	return false
}

// historyLead reports whether t may open a changelog, commit or history
// line.
func historyLead(t string) bool {
	switch t[0] {
	case '#', '[', 'v', 'V', '*', '|', 'c', 'A', 'D', 'M', 'R', 'W', 'f', 'd', 'r', 't', 'b', 'p', 's':
		return true
	}
	return t[0] >= '0' && t[0] <= '9' || t[0] >= 'a' && t[0] <= 'f'
}

// isComment reports whether a trimmed line is a code comment rather than a
// markdown heading or a person's dash: "//", "/*", "<!--" always; "#",
// "--", ";" and "%" only with four words or more after them (a heading is
// short: "# Plan").
func isComment(t string) bool {
	m := reComment.FindString(t)
	if m == "" {
		return false
	}
	m = strings.TrimSpace(m)
	switch {
	case strings.HasPrefix(m, "//"), strings.HasPrefix(m, "/*"), m == "*/", m == "<!--", m == "#!":
		return true
	}
	return len(strings.Fields(t[len(m):])) >= 4
}

// sentenceLike reports whether a line reads as a sentence of prose: it
// ends with a full stop, a question or an exclamation mark after a word.
func sentenceLike(t string) bool {
	t = strings.TrimSpace(t)
	if t == "" {
		return false
	}
	switch t[len(t)-1] {
	case '.', '?', '!':
		return len(reProse.FindAllString(t, -1)) >= 4
	}
	return false
}

// proseLike reports whether a line reads as the person's own sentence:
// lower-case words make up most of it and it carries no code punctuation.
func proseLike(l string) bool {
	t := strings.TrimSpace(l)
	if t == "" {
		return false
	}
	if strings.ContainsAny(t, "{};") || strings.Contains(t, "()") || strings.Contains(t, ":=") || strings.Contains(t, "=>") {
		return false
	}
	words := reProse.FindAllString(t, -1)
	letters := 0
	for _, w := range words {
		letters += len(w)
	}
	return len(words) >= 2 && letters*2 >= len(t)
}

// dominant is the most frequent kind, ties broken by the order below (the
// more specific first).
func dominant(count map[Kind]int) Kind {
	var best Kind
	for _, k := range []Kind{KindEmail, KindChatbot, KindChat, KindWeb, KindTrace, KindTest, KindTerminal, KindLog, KindDiff, KindHTTP,
		KindHTML, KindJSON, KindSQL, KindShell, KindConfig, KindCSV, KindHistory, KindManual, KindTicket, KindTable, KindQuote,
		KindComment, KindData, KindDocument, KindCode} {
		if count[k] > count[best] {
			best = k
		}
	}
	return best
}

// isFenceLine reports whether l opens or closes a code fence.
func isFenceLine(l string) bool {
	_, n, _ := fenceOf(strings.TrimSpace(l))
	return n > 0
}

// fenceOf reads a trimmed line as a code fence: its character (` or ~),
// the length of the run (0: not a fence), and whether nothing follows the
// run (only such a line can close a fence).
func fenceOf(t string) (ch byte, n int, bare bool) {
	if len(t) < 3 || t[0] != '`' && t[0] != '~' {
		return 0, 0, false
	}
	ch = t[0]
	for n < len(t) && t[n] == ch {
		n++
	}
	if n < 3 {
		return 0, 0, false
	}
	return ch, n, strings.TrimSpace(t[n:]) == ""
}

// quoteMarkers open a quoted line: the e-mail and Markdown "> ", its
// fullwidth and HTML-escaped forms, "›" and a "| " bar.
var quoteMarkers = []string{">", "\uff1e", "&gt;", "\u203a", "| "}

// QuotedLine reports whether a trimmed line is quoted, and its text
// without the marker.
func QuotedLine(t string) (string, bool) {
	for _, m := range quoteMarkers {
		if rest, ok := strings.CutPrefix(t, m); ok {
			return strings.TrimPrefix(rest, " "), true
		}
	}
	return t, false
}
