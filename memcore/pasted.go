// The shared judgement of pasted text. A little over 500 lines: each shape
// of paste (fences, quotes, logs, traces, mail, tables, web chrome) is a
// few lines of one line-classifier, and they are read together.

package memcore

import (
	"regexp"
	"strings"

	"github.com/odekmem/odekmem/internal/scan"
)

// Pasted text: what in a person's message the person did not say but
// pasted — logs, terminal transcripts, stack traces, test output, HTML,
// JSON, diffs, tables, e-mail quotes, web-page text, code. It is the one
// judgement the inline approvals (approval.go), the verbatim rule
// (verbatim.go) and per-turn extraction (extract.go) share: a phrase inside
// pasted text approves nothing, a span of it is not the person's words, and
// what extraction finds in it is quarantined with the source class of what
// it looks like.
//
// The judgement is by line. A line is pasted when it is
//   - inside an explicit marker: a fenced code block (``` or ~~~, paired
//     as CommonMark pairs them: the closer is a bare run of the opener's
//     character at least as long; an unclosed fence runs to the end, and
//     when the fences do not balance everything from the first fence to
//     the last is one paste), a quoted line ("> ", "＞", "›", "| ",
//     "&gt;"), or (removed before anything else) an <untrusted_content_…>
//     wrapper. Markers are judged after every line break became "\n" and
//     invisible characters were removed;
//   - machine output by its shape (pasteLineKind): a shell prompt
//     ("$ make", "user@host:~$ …"), a timestamp at the start, a log level
//     at the start or in brackets ("ERROR", "[warn]", "level=error"),
//     logfmt pairs, a stack frame ("at x.y(…)", `File "x.py", line 3`,
//     "goroutine 7 [running]", "panic: …", "FooError: …"), compiler or test
//     output ("main.go:12:3: …", "=== RUN", "--- FAIL", "ok  pkg 0.1s"),
//     an HTML tag at the start, a JSON line, a diff header, a table row or
//     column-aligned or tab-separated output, an HTTP request or status
//     line, a long run without spaces, or indented code (four spaces or a
//     tab, not a list item);
//   - after an e-mail header block ("On … wrote:", two header lines such
//     as "From:"/"Subject:", a "From:" line with an address,
//     "-----Original Message-----", "-------- Forwarded Message --------"
//     in any case): the rest of the message is the mail;
//   - in a paragraph that holds web-page chrome ("Skip to content",
//     "Accept all cookies", "5 min read", "Was this page helpful?", a
//     breadcrumb "Docs › Guides"): the whole paragraph is the page;
//   - glued between a closing fence and an opening one (a paste holding a
//     fence line of its own cannot close the person's fence and put its
//     next lines outside);
//   - after a shell prompt line, up to the next empty line (the command's
//     output); between two pasted lines with no empty line in between; or
//     right after a pasted line when it does not read as prose (code, an
//     "Error:" line, no lower-case word) or when it follows two lines of
//     machine output (a log's last message reads as prose).
//
// The person's own lines around a paste — "here is the log:", "why does
// this fail?" — stay theirs.

// pasteKind names what a pasted region looks like; it decides the source
// class extraction gives what it finds there.
type pasteKind string

const (
	pasteTerminal pasteKind = "terminal transcript"
	pasteLog      pasteKind = "log"
	pasteTrace    pasteKind = "stack trace"
	pasteTest     pasteKind = "test or compiler output"
	pasteHTML     pasteKind = "HTML"
	pasteJSON     pasteKind = "JSON"
	pasteDiff     pasteKind = "diff"
	pasteTable    pasteKind = "table"
	pasteHTTP     pasteKind = "HTTP exchange"
	pasteEmail    pasteKind = "e-mail"
	pasteWeb      pasteKind = "web page text"
	pasteQuote    pasteKind = "quoted text"
	pasteCode     pasteKind = "code"
	pasteData     pasteKind = "data"
)

// sourceClass is the source class of text extracted from a paste of this
// kind: machine output is tool_output, a web page is web, a document
// someone else wrote (a mail, a quote) is file_read.
func (k pasteKind) sourceClass() string {
	switch k {
	case pasteHTML, pasteWeb:
		return SourceWeb
	case pasteEmail, pasteQuote:
		return SourceFileRead
	}
	return SourceToolOutput
}

// pastedRegion is one run of pasted lines.
type pastedRegion struct {
	kind        pasteKind
	first, last int    // line numbers (0-based) in the message without wrappers
	text        string // the region's lines
	marked      bool   // inside a fence or a "> " quote: the person marked it
}

// pastedText is a message split into the person's own text and what they
// pasted.
type pastedText struct {
	// own is the message with every pasted line emptied (an empty line
	// ends a sentence, so no sentence runs across a paste).
	own      string
	regions  []pastedRegion
	ownLines int // non-empty lines of own
}

// unmarked reports whether the message holds a paste the person did not
// mark with a fence or a quote: by the shared judgement, a message that
// looks pasted.
func (p pastedText) unmarked() bool {
	for _, r := range p.regions {
		if !r.marked {
			return true
		}
	}
	return false
}

var (
	pasteTerminalRe = regexp.MustCompile(`^\s*(?:\S+@\S+:\S*\s?[$#%]|PS [A-Za-z]:\\[^>]*>|[$%❯➜λ»]|\(\S+\)\s*\$)\s+\S`)
	pasteStampRe    = regexp.MustCompile(`^\W{0,3}(?:\d{4}[-/]\d{2}[-/]\d{2}[T _]\d{1,2}:\d{2}|\d{1,2}:\d{2}:\d{2}(?:[.,]\d+)?\b|(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) [ \d]\d \d{2}:\d{2}:\d{2}|\d{10}(?:\.\d+)?\s|[IWEF]\d{4} \d{2}:\d{2})`)
	pasteLevelRe    = regexp.MustCompile(`^(?:\W{0,3}(?:INFO|WARN|WARNING|ERROR|ERR|DEBUG|TRACE|FATAL|CRITICAL|CRIT|NOTICE|PANIC|SEVERE)\b[\]:|\s]|npm (?:ERR|WARN)!|(?:error|warning|fatal|panic)(?:\[\w+\])?: )`)
	pasteLevelInRe  = regexp.MustCompile(`\[(?i:info|warn|warning|error|err|debug|trace|fatal|critical|notice)\]|\blevel=(?i:info|warn|warning|error|debug|trace|fatal)\b`)
	pasteLogfmtRe   = regexp.MustCompile(`(?:\b[\w.]+=(?:"[^"]*"|\S+)\s+){3,}`)
	pasteTraceRe    = regexp.MustCompile(`^(?:\s+at \S|\s*File ".+", line \d+|goroutine \d+ \[|panic: |\s*\S+\.go:\d+ \+0x|Exception in thread|\s*Caused by: |\s*\.\.\. \d+ more|\s*[\w.$]*(?:Error|Exception)(?::\s|$)|\s*#\d+\s+0x[0-9a-f]+|\s*\d+: 0x[0-9a-f]+|\s*at .+\(.+:\d+(?::\d+)?\))`)
	pasteTestRe     = regexp.MustCompile(`^\s*(?:=== (?:RUN|PAUSE|CONT|NAME)\s|--- (?:FAIL|PASS|SKIP):|(?:ok|FAIL|PASS)\s+\S+\s+[\d.]+s\b|(?:PASS|FAIL)$|FAILED \S+::|PASSED \S+::|={3,} .* ={3,}$|[✓✔✗✘×●]\s|\d+ (?:passing|failing|pending)\b|Tests?:\s+\d+|(?:\./|/|[A-Za-z]:\\)?[\w.\-/\\]+\.[A-Za-z]{1,5}:\d+(?::\d+)?:?(?:\s|$))`)
	pasteHTMLRe     = regexp.MustCompile(`^\s*<(?:!DOCTYPE|!--|/?[a-zA-Z][\w:-]*(?:\s[^<>]*)?/?>)|<([a-zA-Z][\w-]*)(?:\s[^<>]*)?>[^<]*</([a-zA-Z][\w-]*)>`)
	pasteJSONRe     = regexp.MustCompile(`^\s*(?:[{\[]\s*(?:"|\{|\[|$)|"[^"\n]{1,80}"\s*:\s*(?:"|\d|-|\{|\[|true|false|null)|[}\]],?\s*$)`)
	pasteDiffRe     = regexp.MustCompile(`^(?:diff --git |@@ -\d+(?:,\d+)? \+\d+|(?:\+\+\+|---) (?:[ab]/|/dev/null)|index [0-9a-f]{6,}\.\.)`)
	pasteTableRe    = regexp.MustCompile(`^\s*[│|┃+╭╰├].*[│|┃+╮╯┤]\s*$|^\s*[─━═]{3,}|\S {3,}\S+ {3,}\S|\S\t+\S`)
	pasteHTTPRe     = regexp.MustCompile(`^(?:(?:GET|POST|PUT|DELETE|PATCH|HEAD|OPTIONS) (?:/|https?://)\S* HTTP/\d|HTTP/\d(?:\.\d)? \d{3}\b)`)
	pasteBlobRe     = regexp.MustCompile(`^\s*\S{60,}\s*$`)
	pasteIndentRe   = regexp.MustCompile(`^(?: {4,}|\t)\S`)
	pasteListRe     = regexp.MustCompile(`^\s*(?:[-*+•]|\d+[.)])\s`)
	pasteWroteRe    = regexp.MustCompile(`^\s*(?:On .{6,} wrote:\s*$|-{2,} ?(?i:original message|forwarded message) ?-{2,}|(?i:begin forwarded message):)`)
	pasteHeaderRe   = regexp.MustCompile(`^(?i:From|To|Cc|Bcc|Subject|Date|Sent|Reply-To):\s+\S`)
	pasteFromRe     = regexp.MustCompile(`^(?i:From):\s+.*(?:\S@\S|<[^>]+>|\[mailto:)`)
	pasteChromeRe   = regexp.MustCompile(`(?i)^\s*(?:skip to (?:main )?content|accept (?:all )?cookies|we use cookies|\d+ min(?:ute)? read|table of contents|was this (?:page|article) helpful\??|all rights reserved|copyright ©|© \d{4}|edit this page|share this (?:article|post)|posted (?:by|on) |last (?:updated|modified)(?: on)?:? |advertisement|sign up for our newsletter)`)
	pasteCrumbRe    = regexp.MustCompile(`\S+ [›»] \S+ [›»] \S`)
	pasteProseWord  = regexp.MustCompile(`\b[a-z]{2,}\b`)
)

// pasteLineKind is what a single line looks like: a paste kind, or "" for
// a line that reads as the person's prose.
func pasteLineKind(l string) pasteKind {
	t := strings.TrimSpace(l)
	if t == "" {
		return ""
	}
	// Cheap tests first decide which patterns can match at all: most
	// lines of prose skip every regular expression but two anchored ones.
	lead := t[0]
	digitLead := lead >= '0' && lead <= '9' || lead == '['
	symbolLead := !(lead >= 'a' && lead <= 'z' || lead >= 'A' && lead <= 'Z')
	switch {
	case (symbolLead || strings.ContainsAny(t, "@$%#>")) && pasteTerminalRe.MatchString(l):
		return pasteTerminal
	case pasteTraceRe.MatchString(l), strings.Contains(t, "Traceback (most recent call last)"):
		return pasteTrace
	case pasteTestRe.MatchString(l):
		return pasteTest
	case (digitLead || symbolLead || strings.HasPrefix(t, "Jan") || len(t) > 3) && pasteStampRe.MatchString(l),
		pasteLevelRe.MatchString(l),
		strings.ContainsAny(t, "[=") && pasteLevelInRe.MatchString(l),
		strings.Count(t, "=") >= 3 && pasteLogfmtRe.MatchString(l):
		return pasteLog
	case strings.ContainsAny(lead0(t), "d@+-i") && pasteDiffRe.MatchString(l):
		return pasteDiff
	case (lead == 'H' || lead == 'G' || lead == 'P' || lead == 'D' || lead == 'O') && pasteHTTPRe.MatchString(l):
		return pasteHTTP
	case strings.ContainsRune(t, '<') && pasteHTMLRe.MatchString(l):
		return pasteHTML
	case strings.ContainsAny(lead0(t), "{}[]\"") && pasteJSONRe.MatchString(l):
		return pasteJSON
	case (symbolLead || strings.Contains(t, "   ") || strings.ContainsRune(t, '\t')) && pasteTableRe.MatchString(l):
		return pasteTable
	case len(t) >= 60 && pasteBlobRe.MatchString(l):
		return pasteData
	case pasteIndentRe.MatchString(l) && !pasteListRe.MatchString(l):
		return pasteCode
	}
	return ""
}

// machineOutput reports whether a kind is output a program printed line
// by line (a log, a stack trace, test or compiler output).
func machineOutput(k pasteKind) bool {
	return k == pasteLog || k == pasteTrace || k == pasteTest
}

// lead0 is the first byte of t as a string.
func lead0(t string) string { return t[:1] }

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
	words := pasteProseWord.FindAllString(t, -1)
	letters := 0
	for _, w := range words {
		letters += len(w)
	}
	return len(words) >= 2 && letters*2 >= len(t)
}

// splitPasted splits msg into the person's own text and the regions they
// pasted (see the rules above). Untrusted-content wrappers are removed
// first and belong to neither.
func splitPasted(msg string) pastedText {
	// Markers are judged on the text as the person sees it: every line
	// break is "\n" and invisible characters are gone (a zero-width space
	// before a fence or a "> " must not hide it).
	lines := strings.Split(scan.StripUntrusted(scan.StripHidden(normalizeBreaks(msg))), "\n")
	kinds := make([]pasteKind, len(lines))
	marked := make([]bool, len(lines))

	// Explicit marks: fences and quoted lines. Fences pair as CommonMark
	// pairs them: a closing fence is a bare run of the opener's character
	// (` or ~), at least as long, with no info string; an unclosed fence
	// runs to the end of the message.
	var blocks [][2]int // fenced blocks: opening and closing line
	open := -1
	var openCh byte
	openLen := 0
	for i, l := range lines {
		t := strings.TrimSpace(l)
		if open >= 0 {
			kinds[i], marked[i] = pasteCode, true
			if ch, n, bare := fenceOf(t); n > 0 && bare && ch == openCh && n >= openLen {
				blocks = append(blocks, [2]int{open, i})
				open = -1
			}
			continue
		}
		if ch, n, _ := fenceOf(t); n > 0 {
			open, openCh, openLen = i, ch, n
			kinds[i], marked[i] = pasteCode, true
			continue
		}
		if _, ok := quotedLine(t); ok {
			kinds[i], marked[i] = pasteQuote, true
		}
	}
	if open >= 0 {
		// The fences do not balance: a paste brought a fence line of its
		// own, and which fence lines the person typed is unknown. What
		// lies between the first fence and the last one is one paste
		// (the person's fences are the outer ones: text between blocks
		// cannot be told from a paste that holds a closing and an opening
		// fence); after the last fence line the text is the person's when
		// that line could close the first fence, else the unclosed fence
		// runs to the end.
		first, firstCh, firstLen := open, openCh, openLen
		if len(blocks) > 0 {
			first = blocks[0][0]
			firstCh, firstLen, _ = fenceOf(strings.TrimSpace(lines[first]))
		}
		end := len(lines) - 1
		if first != open {
			if ch, n, bare := fenceOf(strings.TrimSpace(lines[open])); bare && ch == firstCh && n >= firstLen {
				end = open
			}
		}
		for i := first; i <= end; i++ {
			kinds[i], marked[i] = pasteCode, true
		}
		for i := end + 1; i < len(lines); i++ {
			kinds[i], marked[i] = "", false
			if _, ok := quotedLine(strings.TrimSpace(lines[i])); ok {
				kinds[i], marked[i] = pasteQuote, true
			}
		}
		blocks = append(blocks[:0], [2]int{first, end})
	}
	for _, b := range blocks {
		refineFence(lines, kinds, b[0], b[1])
	}

	// Lines by their shape; a diff runs on through its context lines.
	inDiff := false
	for i, l := range lines {
		if marked[i] {
			inDiff = false
			continue
		}
		if k := pasteLineKind(l); k != "" {
			kinds[i] = k
			inDiff = k == pasteDiff || inDiff && strings.HasPrefix(l, "@@")
			continue
		}
		if inDiff && l != "" && strings.ContainsRune(" +-\\", rune(l[0])) {
			kinds[i] = pasteDiff
			continue
		}
		inDiff = false
	}

	// An e-mail: from its header block to the end of the message.
	for i := range lines {
		if marked[i] {
			continue
		}
		hdr := pasteWroteRe.MatchString(lines[i]) || pasteFromRe.MatchString(lines[i]) ||
			pasteHeaderRe.MatchString(lines[i]) && i+1 < len(lines) && pasteHeaderRe.MatchString(lines[i+1])
		if !hdr {
			continue
		}
		for j := i; j < len(lines); j++ {
			if !marked[j] && strings.TrimSpace(lines[j]) != "" {
				kinds[j] = pasteEmail
			}
		}
		break
	}

	// Web-page chrome makes its whole paragraph the page.
	for start := 0; start < len(lines); {
		end := start
		for end < len(lines) && strings.TrimSpace(lines[end]) != "" {
			end++
		}
		chrome := false
		for i := start; i < end; i++ {
			if !marked[i] && (pasteChromeRe.MatchString(lines[i]) || strings.ContainsAny(lines[i], "›»") && pasteCrumbRe.MatchString(lines[i])) {
				chrome = true
			}
		}
		if chrome {
			for i := start; i < end; i++ {
				if !marked[i] {
					kinds[i] = pasteWeb
				}
			}
		}
		start = end + 1
	}

	// Growth: what follows a shell prompt up to an empty line is its
	// output; a line between two pasted lines of one block, or right after
	// a pasted line when it is not prose, belongs to the paste.
	for i := range lines {
		if kinds[i] != "" || strings.TrimSpace(lines[i]) == "" {
			continue
		}
		prev := i - 1
		if prev < 0 || kinds[prev] == "" || marked[prev] {
			continue
		}
		if kinds[prev] == pasteTerminal {
			kinds[i] = pasteTerminal
			continue
		}
		next := i + 1
		for next < len(lines) && kinds[next] == "" && strings.TrimSpace(lines[next]) != "" {
			next++
		}
		sandwiched := next < len(lines) && kinds[next] != "" && !marked[next] && next-i <= 3
		if sandwiched {
			for j := i; j < next; j++ {
				kinds[j] = kinds[prev]
			}
			continue
		}
		// A prose line right after two or more lines of machine output
		// (no empty line between) ends that output: a log's last message
		// reads as prose. The person's own words after a log come after an
		// empty line.
		if !proseLike(lines[i]) || machineOutput(kinds[prev]) && prev > 0 && machineOutput(kinds[prev-1]) && !marked[prev-1] {
			kinds[i] = kinds[prev]
		}
	}

	// Lines glued between a closing fence and an opening one (no empty
	// line on either side) belong to the paste: pasted text that holds a
	// fence line of its own would otherwise close the person's fence and
	// put its next lines outside it.
	for i := 0; i < len(lines); i++ {
		if kinds[i] != "" || strings.TrimSpace(lines[i]) == "" || i == 0 || !isFenceLine(lines[i-1]) {
			continue
		}
		j := i
		for j < len(lines) && kinds[j] == "" && strings.TrimSpace(lines[j]) != "" {
			j++
		}
		if j < len(lines) && isFenceLine(lines[j]) {
			for k := i; k < j; k++ {
				kinds[k] = pasteCode
			}
		}
		i = j
	}

	// Regions and the person's own text.
	var p pastedText
	own := make([]string, len(lines))
	for i := 0; i < len(lines); {
		if kinds[i] == "" {
			own[i] = lines[i]
			if strings.TrimSpace(lines[i]) != "" {
				p.ownLines++
			}
			i++
			continue
		}
		j := i
		count := map[pasteKind]int{}
		for j < len(lines) && kinds[j] != "" && marked[j] == marked[i] {
			count[kinds[j]]++
			j++
		}
		p.regions = append(p.regions, pastedRegion{kind: dominantKind(count), first: i, last: j - 1,
			text: strings.Join(lines[i:j], "\n"), marked: marked[i]})
		i = j
	}
	p.own = strings.Join(own, "\n")
	return p
}

// refineFence names a fenced block by its info string or its lines
// ("```console", a fenced log) instead of plain code.
func refineFence(lines []string, kinds []pasteKind, open, close int) {
	info := strings.ToLower(strings.TrimSpace(strings.TrimLeft(strings.TrimSpace(lines[open]), "`~")))
	k := pasteCode
	switch info {
	case "console", "shell-session", "terminal", "sh-session":
		k = pasteTerminal
	case "log", "logs", "text", "txt", "output", "":
		count := map[pasteKind]int{}
		for i := open + 1; i < close; i++ {
			if lk := pasteLineKind(lines[i]); lk != "" && lk != pasteCode {
				count[lk]++
			}
		}
		if d := dominantKind(count); d != "" {
			k = d
		}
	case "json", "jsonl":
		k = pasteJSON
	case "html", "xml":
		k = pasteHTML
	case "diff", "patch":
		k = pasteDiff
	case "email", "eml":
		k = pasteEmail
	}
	for i := open; i <= close && i < len(kinds); i++ {
		kinds[i] = k
	}
}

// dominantKind is the most frequent kind, ties broken by the order below
// (the more specific first).
func dominantKind(count map[pasteKind]int) pasteKind {
	var best pasteKind
	for _, k := range []pasteKind{pasteEmail, pasteWeb, pasteTrace, pasteTest, pasteTerminal, pasteLog, pasteDiff, pasteHTTP,
		pasteHTML, pasteJSON, pasteTable, pasteQuote, pasteData, pasteCode} {
		if count[k] > count[best] {
			best = k
		}
	}
	return best
}

// ownText is the person's message without what they pasted: every pasted
// line (see splitPasted) is an empty line, which ends a sentence.
func ownText(msg string) string {
	return splitPasted(msg).own
}

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

// quotedLine reports whether a trimmed line is quoted, and its text
// without the marker.
func quotedLine(t string) (string, bool) {
	for _, m := range quoteMarkers {
		if rest, ok := strings.CutPrefix(t, m); ok {
			return strings.TrimPrefix(rest, " "), true
		}
	}
	return t, false
}

// normalizeBreaks makes every line break "\n": CRLF, CR, NEL (U+0085),
// LINE SEPARATOR (U+2028), PARAGRAPH SEPARATOR (U+2029), vertical tab and
// form feed. The pasted-text judgement and the verbatim rule both read
// lines through it, so no break the one sees can hide from the other.
func normalizeBreaks(s string) string {
	if !strings.ContainsAny(s, "\r\v\f\u0085\u2028\u2029") {
		return s
	}
	return breakReplacer.Replace(s)
}

var breakReplacer = strings.NewReplacer("\r\n", "\n", "\r", "\n", "\v", "\n", "\f", "\n", "\u0085", "\n", "\u2028", "\n", "\u2029", "\n")
