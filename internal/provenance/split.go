package provenance

import (
	"strings"
	"unicode"

	"github.com/odekmem/odekmem/internal/lazyre"
	"github.com/odekmem/odekmem/internal/scan"
)

// Region is one run of pasted lines.
type Region struct {
	Kind        Kind
	First, Last int    // line numbers (0-based) in Pasted.Lines
	Text        string // the region's lines
	// Marked is true inside a fence or a "> " quote: the person marked it.
	Marked bool
}

// Split is a message split, line by line, into the person's own text,
// text they pasted, and text that could be either.
type Split struct {
	// Text is the message as judged: every line break "\n", invisible
	// characters and <untrusted_content_…> wrappers removed.
	Text string
	// Lines are Text's lines; Kinds, Marked and Unsure describe each:
	// a paste kind ("" for the person's own line), whether the person
	// marked it (fence or quote), and, for a line of their own, whether
	// it could still be part of the paste next to it.
	Lines  []string
	Kinds  []Kind
	Marked []bool
	Unsure []bool
	// Regions are the runs of pasted lines.
	Regions []Region
	// Own is Text with every pasted or unsure line emptied (an empty
	// line ends a sentence, so no sentence runs across a paste); OwnLines
	// counts its non-empty lines.
	Own      string
	OwnLines int
}

// Unmarked reports whether the message holds a paste the person did not
// mark with a fence or a quote: a message that looks pasted.
func (p Split) Unmarked() bool {
	for _, r := range p.Regions {
		if !r.Marked {
			return true
		}
	}
	return false
}

// Clean is what the judgement reads: every line break "\n" (see
// NormalizeBreaks), invisible characters and untrusted-content wrappers
// removed. Offsets of an Analysis refer to it.
func Clean(msg string) string {
	return scan.StripUntrusted(scan.StripHidden(NormalizeBreaks(msg)))
}

// SplitPasted judges every line of msg. A line is pasted when it is
//   - inside an explicit marker: a fenced code block (``` or ~~~, paired
//     as CommonMark pairs them; when the fences do not balance everything
//     from the first fence to the last is one paste) or a quoted line
//     ("> ", "＞", "›", "| ", "&gt;");
//   - machine output or a file by its shape (lineKind): a shell prompt,
//     log lines, stack frames, compiler and test output, HTML, JSON, a
//     diff, a table, an HTTP exchange, indented code, comments of many
//     languages, Dockerfile instructions, SQL, shell commands, INI/TOML
//     sections, env files, changelog and commit headers, manual page
//     headings, chat-client headers, ticket fields; runs of YAML keys, of
//     key = value lines and of CSV rows;
//   - part of a document someone else wrote, by its frame: an e-mail (a
//     header block, "On … wrote:", or a greeting line down to a sign-off),
//     a chatbot's answer (its opener to its closer), a chat message (the
//     lines under a name-and-time header), web-page chrome, the paragraph
//     under a ticket or manual heading, the text after an introduction
//     that names where it comes from ("Found this in the setup docs:",
//     "Teammate's review comment:"), and the text before a line that says
//     where it came from ("this is from the vendor page");
//   - glued to a paste: between two pasted lines, after a shell prompt up
//     to an empty line, right after a pasted line when it is not prose.
//
// The person's own lines right after a document-like paste, in the same
// paragraph, are marked Unsure: they may be the paste's last lines.
func SplitPasted(msg string) Split {
	text := Clean(msg)
	lines := strings.Split(text, "\n")
	n := len(lines)
	kinds := make([]Kind, n)
	marked := make([]bool, n)
	unsure := make([]bool, n)
	frame := make([]bool, n) // the person's lines about a paste: never part of it
	blank := func(i int) bool { return strings.TrimSpace(lines[i]) == "" }

	markFences(lines, kinds, marked)

	// Lines by their shape; a diff runs on through its context lines, a
	// block comment to its end.
	inDiff, inBlock, inDoc := false, false, ""
	for i, l := range lines {
		if marked[i] {
			inDiff, inBlock, inDoc = false, false, ""
			continue
		}
		t := strings.TrimSpace(l)
		if inBlock {
			kinds[i] = KindComment
			inBlock = !strings.Contains(t, "*/")
			continue
		}
		if strings.HasPrefix(t, "/*") {
			kinds[i] = KindComment
			inBlock = !strings.Contains(t[2:], "*/")
			continue
		}
		// A docstring: from a line holding a triple quote to the next.
		if inDoc != "" {
			kinds[i] = KindComment
			if strings.Contains(t, inDoc) {
				inDoc = ""
			}
			continue
		}
		if q := docQuote(t); q != "" {
			kinds[i] = KindComment
			if strings.Count(t, q) == 1 {
				inDoc = q
			}
			continue
		}
		if k := lineKind(l); k != "" {
			kinds[i] = k
			inDiff = k == KindDiff || inDiff && strings.HasPrefix(l, "@@")
			continue
		}
		if inDiff && l != "" && strings.ContainsRune(" +-\\", rune(l[0])) {
			kinds[i] = KindDiff
			continue
		}
		inDiff = false
	}

	// Two or more lines opening with + or - and no space: a diff's
	// changed lines without its header.
	for i := 0; i+1 < n; i++ {
		if plusMinus(lines[i]) && plusMinus(lines[i+1]) && !marked[i] && !marked[i+1] {
			j := i
			for j < n && plusMinus(lines[j]) && !marked[j] {
				kinds[j] = KindDiff
				j++
			}
			i = j
		}
	}

	// What follows a shell prompt up to an empty line is its output,
	// before any document frame can claim it.
	for i := 1; i < n; i++ {
		if kinds[i] == "" && !marked[i] && !blank(i) && kinds[i-1] == KindTerminal && !marked[i-1] {
			kinds[i] = KindTerminal
		}
	}

	markBraces(lines, kinds, marked)
	markRuns(lines, kinds, marked)
	markEmail(lines, kinds, marked)
	markChrome(lines, kinds, marked)
	markDocuments(lines, kinds, marked, unsure, frame)

	// Growth: what follows a shell prompt up to an empty line is its
	// output; a line between two pasted lines of one block, or right after
	// a pasted line when it is not prose, belongs to the paste.
	for i := range lines {
		if kinds[i] != "" || blank(i) || frame[i] {
			continue
		}
		prev := i - 1
		if prev < 0 || kinds[prev] == "" || marked[prev] {
			continue
		}
		if kinds[prev] == KindTerminal {
			kinds[i] = KindTerminal
			continue
		}
		next := i + 1
		for next < n && kinds[next] == "" && !blank(next) {
			next++
		}
		if next < n && kinds[next] != "" && !marked[next] && next-i <= 3 {
			for j := i; j < next; j++ {
				kinds[j] = kinds[prev]
				unsure[j] = false
			}
			continue
		}
		// A prose line right after two or more lines of machine output
		// (no empty line between) ends that output: a log's last message
		// reads as prose. The person's own words after a log come after an
		// empty line.
		// A line the person opens in their own voice ("Our pool size is
		// 20 …", "We run 6 instances") ends it all the same.
		if !proseLike(lines[i]) || kinds[prev].machine() && prev > 0 && kinds[prev-1].machine() && !marked[prev-1] && !reFirstLead.MatchString(lines[i]) {
			kinds[i] = kinds[prev]
			unsure[i] = false
			continue
		}
		// Prose glued under a document-like paste may be its last line.
		if documentLike(kinds[prev]) {
			unsure[i] = true
		}
	}

	// Backward growth: a line glued right before a pasted line (no empty
	// line between) that does not read as prose opens that paste — the
	// first line of a query, a resource or a section whose shape no
	// single-line test knew ("SELECT o.id, SUM(li.cents) AS total" over
	// "FROM orders o"). A short line ("see", "why?", "look:") or one that
	// introduces or asks is the person's.
	for i := n - 2; i >= 0; i-- {
		if kinds[i] != "" || blank(i) || frame[i] || marked[i] || kinds[i+1] == "" || marked[i+1] || proseLike(lines[i]) {
			continue
		}
		if t := strings.TrimSpace(lines[i]); len(strings.Fields(t)) < 3 || strings.HasSuffix(t, ":") || strings.HasSuffix(t, "?") || plainWords(t) >= 3 {
			continue
		}
		kinds[i] = kinds[i+1]
		unsure[i] = false
	}

	// Lines glued between a closing fence and an opening one (no empty
	// line on either side) belong to the paste: pasted text that holds a
	// fence line of its own would otherwise close the person's fence and
	// put its next lines outside it.
	for i := 0; i < n; i++ {
		if kinds[i] != "" || blank(i) || i == 0 || !isFenceLine(lines[i-1]) {
			continue
		}
		j := i
		for j < n && kinds[j] == "" && !blank(j) {
			j++
		}
		if j < n && isFenceLine(lines[j]) {
			for k := i; k < j; k++ {
				kinds[k] = KindCode
			}
		}
		i = j
	}

	// Regions and the person's own text.
	p := Split{Text: text, Lines: lines, Kinds: kinds, Marked: marked, Unsure: unsure}
	own := make([]string, n)
	for i := 0; i < n; {
		if kinds[i] == "" {
			if !unsure[i] {
				own[i] = lines[i]
				if !blank(i) {
					p.OwnLines++
				}
			}
			i++
			continue
		}
		unsure[i] = false
		j := i
		count := map[Kind]int{}
		for j < n && kinds[j] != "" && marked[j] == marked[i] {
			unsure[j] = false
			count[kinds[j]]++
			j++
		}
		p.Regions = append(p.Regions, Region{Kind: dominant(count), First: i, Last: j - 1,
			Text: strings.Join(lines[i:j], "\n"), Marked: marked[i]})
		i = j
	}
	p.Own = strings.Join(own, "\n")
	return p
}

// docQuote returns the triple quote a line holds (a docstring's), or "".
func docQuote(t string) string {
	for _, q := range []string{`"""`, "'''"} {
		if strings.Contains(t, q) {
			return q
		}
	}
	return ""
}

// plusMinus reports whether a line opens with + or - and no space after
// it (a changed line of a diff, not a list item).
func plusMinus(l string) bool {
	return len(l) > 1 && (l[0] == '+' || l[0] == '-') && l[1] != ' ' && l[1] != '-' && l[1] != '+' && l[1] != '\t'
}

// documentLike reports whether a kind is prose someone else wrote (so the
// prose right under it may still be theirs).
func documentLike(k Kind) bool {
	switch k {
	case KindEmail, KindChat, KindChatbot, KindDocument, KindTicket, KindWeb, KindComment, KindHistory, KindManual, KindQuote:
		return true
	}
	return false
}

// markFences marks fenced blocks and quoted lines.
func markFences(lines []string, kinds []Kind, marked []bool) {
	var blocks [][2]int
	open := -1
	var openCh byte
	openLen := 0
	for i, l := range lines {
		t := strings.TrimSpace(l)
		if open >= 0 {
			kinds[i], marked[i] = KindCode, true
			if ch, n, bare := fenceOf(t); n > 0 && bare && ch == openCh && n >= openLen {
				blocks = append(blocks, [2]int{open, i})
				open = -1
			}
			continue
		}
		if ch, n, _ := fenceOf(t); n > 0 {
			open, openCh, openLen = i, ch, n
			kinds[i], marked[i] = KindCode, true
			continue
		}
		if _, ok := QuotedLine(t); ok {
			kinds[i], marked[i] = KindQuote, true
		}
	}
	if open >= 0 {
		// The fences do not balance: a paste brought a fence line of its
		// own. What lies between the first fence and the last one is one
		// paste; after the last fence line the text is the person's when
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
			kinds[i], marked[i] = KindCode, true
		}
		for i := end + 1; i < len(lines); i++ {
			kinds[i], marked[i] = "", false
			if _, ok := QuotedLine(strings.TrimSpace(lines[i])); ok {
				kinds[i], marked[i] = KindQuote, true
			}
		}
		blocks = append(blocks[:0], [2]int{first, end})
	}
	for _, b := range blocks {
		refineFence(lines, kinds, b[0], b[1])
	}
}

// refineFence names a fenced block by its info string or its lines
// ("```console", a fenced log) instead of plain code.
func refineFence(lines []string, kinds []Kind, open, close int) {
	info := strings.ToLower(strings.TrimSpace(strings.TrimLeft(strings.TrimSpace(lines[open]), "`~")))
	k := KindCode
	switch info {
	case "console", "shell-session", "terminal", "sh-session":
		k = KindTerminal
	case "log", "logs", "text", "txt", "output", "":
		count := map[Kind]int{}
		for i := open + 1; i < close; i++ {
			if lk := lineKind(lines[i]); lk != "" && lk != KindCode {
				count[lk]++
			}
		}
		if d := dominant(count); d != "" {
			k = d
		}
	case "json", "jsonl":
		k = KindJSON
	case "html", "xml":
		k = KindHTML
	case "diff", "patch":
		k = KindDiff
	case "email", "eml":
		k = KindEmail
	case "yaml", "yml", "toml", "ini", "env", "dotenv", "properties":
		k = KindConfig
	case "sql":
		k = KindSQL
	case "sh", "bash", "zsh", "shell", "fish", "powershell", "ps1":
		k = KindShell
	case "csv", "tsv":
		k = KindCSV
	case "md", "markdown":
		k = KindDocument
	}
	for i := open; i <= close && i < len(kinds); i++ {
		kinds[i] = k
	}
}

var reCSVField = lazyre.New(`"(?:[^"]|"")*"`)

// csvCommas counts the field separators of a CSV row (commas outside
// quoted fields), or -1 when the line does not read as a row: a comma
// followed by a space is prose.
func csvCommas(t string) int {
	u := reCSVField.ReplaceAllString(t, "x")
	if strings.Contains(u, ", ") || strings.HasSuffix(u, ".") && !strings.Contains(u, ",") {
		return -1
	}
	return strings.Count(u, ",")
}

// markRuns marks runs of lines that are a file's only together: YAML keys,
// key = value lines, CSV rows, a make target and its recipe.
func markRuns(lines []string, kinds []Kind, marked []bool) {
	n := len(lines)
	free := func(i int) bool { return i >= 0 && i < n && !marked[i] && strings.TrimSpace(lines[i]) != "" }
	isYAML := func(i int) bool {
		t := lines[i]
		return reYAMLKey.MatchString(t) || strings.HasPrefix(strings.TrimSpace(t), "#") || reYAMLDoc.MatchString(strings.TrimSpace(t)) ||
			kinds[i] == KindComment || kinds[i] == KindCode && strings.HasPrefix(strings.TrimSpace(t), "- ")
	}
	isIni := func(i int) bool {
		t := strings.TrimSpace(lines[i])
		return reKeyEq.MatchString(t) || reSection.MatchString(t) || reEnvLine.MatchString(t) || kinds[i] == KindComment || kinds[i] == KindConfig
	}
	for i := 0; i < n; {
		if !free(i) {
			i++
			continue
		}
		// A run of YAML lines: two or more, at least one a bare key
		// with an indented line under it or two keys.
		j, keys, structural := i, 0, 0
		for j < n && free(j) && (isYAML(j) || j > i && strings.HasPrefix(lines[j], " ") && keys > 0) {
			if reYAMLKey.MatchString(lines[j]) {
				keys++
			}
			if yamlStructural(lines[j]) {
				structural++
			}
			j++
		}
		// Two keys and two lines that only a file has: an indented line,
		// a list item, a bare key opening a mapping, a value with no
		// space in it ("panic: nil map" and "note: see below" are
		// prose).
		if keys >= 2 && j-i >= 2 && structural >= 2 {
			for k := i; k < j; k++ {
				if kinds[k] == "" || kinds[k] == KindComment || kinds[k] == KindCode {
					kinds[k] = KindConfig
				}
			}
			i = j
			continue
		}
		// key = value lines (INI, TOML, env, properties).
		j, pairs := i, 0
		for j < n && free(j) && isIni(j) {
			if reKeyEq.MatchString(strings.TrimSpace(lines[j])) || reEnvLine.MatchString(strings.TrimSpace(lines[j])) {
				pairs++
			}
			j++
		}
		if pairs >= 1 && j-i >= 2 {
			for k := i; k < j; k++ {
				if kinds[k] == "" || kinds[k] == KindComment {
					kinds[k] = KindConfig
				}
			}
			i = j
			continue
		}
		// CSV rows: two or more with the same number of separators.
		c := csvCommas(strings.TrimSpace(lines[i]))
		j = i
		for c >= 1 && j < n && free(j) && csvCommas(strings.TrimSpace(lines[j])) == c {
			j++
		}
		header := !strings.Contains(strings.TrimSpace(lines[i]), " ")
		if c >= 2 && j-i >= 2 || c >= 1 && header && j-i >= 3 {
			for k := i; k < j; k++ {
				kinds[k] = KindCSV
			}
			i = j
			continue
		}
		// A make target with a recipe under it.
		if t := strings.TrimSpace(lines[i]); reMakeTarget.MatchString(t) && i+1 < n && (kinds[i+1] == KindCode || kinds[i+1] == KindComment) && strings.HasPrefix(lines[i+1], "\t") {
			kinds[i] = KindCode
		}
		i++
	}
}

// markBraces marks a brace block as code: a line that opens a block ("{"
// at its end) through the line that closes it ("}" alone), with no empty
// line between and at most 40 lines — an HCL resource, a Go or C body,
// nginx or CSS — whatever single-line shapes its lines have.
func markBraces(lines []string, kinds []Kind, marked []bool) {
	n := len(lines)
	for i := 0; i < n; i++ {
		t := strings.TrimSpace(lines[i])
		if marked[i] || !strings.HasSuffix(t, "{") || len(t) < 2 || plainWords(t) >= 3 {
			continue
		}
		depth, j := 0, i
		for ; j < n && j-i <= 40 && !marked[j]; j++ {
			u := strings.TrimSpace(lines[j])
			if u == "" {
				break
			}
			depth += strings.Count(u, "{") - strings.Count(u, "}")
			if depth <= 0 {
				break
			}
		}
		if j >= n || j-i > 40 || marked[j] || depth != 0 || !strings.HasPrefix(strings.TrimSpace(lines[j]), "}") {
			continue
		}
		for k := i; k <= j; k++ {
			if kinds[k] == "" || kinds[k] == KindComment || kinds[k] == KindConfig {
				kinds[k] = KindCode
			}
		}
		i = j
	}
}

// plainWords counts the words of t that are plain lower-case words of
// three letters or more once bracketing punctuation is trimmed: a
// person's sentence has several ("Use snake_case for JSON fields {like
// this}"), a line of code or a query few ("SELECT o.id, SUM(li.cents) AS
// total").
func plainWords(t string) int {
	n := 0
	for _, w := range strings.Fields(t) {
		w = strings.Trim(w, "{}()[]<>,.;:!?\"'`")
		if len(w) < 3 {
			continue
		}
		plain := true
		for i := 0; i < len(w); i++ {
			if w[i] < 'a' || w[i] > 'z' {
				plain = false
				break
			}
		}
		if plain {
			n++
		}
	}
	return n
}

// yamlStructural reports whether a YAML-looking line has a shape prose
// does not: indented, a list item, a bare key, or a one-word value.
func yamlStructural(l string) bool {
	if strings.HasPrefix(l, " ") || strings.HasPrefix(l, "\t") || strings.HasPrefix(strings.TrimSpace(l), "- ") || strings.HasPrefix(strings.TrimSpace(l), "#") {
		return true
	}
	t := strings.TrimSpace(l)
	i := strings.IndexByte(t, ':')
	if i < 0 {
		return false
	}
	v := strings.TrimSpace(t[i+1:])
	return v == "" || !strings.Contains(v, " ") || strings.HasPrefix(v, "[") || strings.HasPrefix(v, "{") || strings.HasPrefix(v, "\"")
}

var reMakeTarget = lazyre.New(`^[\w.\-/$()]+\s*:{1,2}(?:\s+[\w.\-/$() ]*)?$`)

// markEmail marks an e-mail: from its header block to the end of the
// message; from a greeting line down to a sign-off and the name under it.
func markEmail(lines []string, kinds []Kind, marked []bool) {
	for i := range lines {
		if marked[i] {
			continue
		}
		hdr := reWrote.MatchString(lines[i]) || reFrom.MatchString(lines[i]) ||
			reHeader.MatchString(lines[i]) && i+1 < len(lines) && reHeader.MatchString(lines[i+1])
		if !hdr {
			continue
		}
		// The header block; markDocuments extends it over the body.
		for j := i; j < len(lines) && strings.TrimSpace(lines[j]) != ""; j++ {
			if !marked[j] {
				kinds[j] = KindEmail
			}
		}
		return
	}
	// A sign-off with a name ("Thanks,\nGreg", "Cheers, Dmitri") ends a
	// mail that runs back to its greeting or the start of the message.
	for j := range lines {
		t := strings.TrimSpace(lines[j])
		if marked[j] || j == 0 || !reSignoff.MatchString(t) {
			continue
		}
		named := false
		if c := strings.IndexByte(t, ','); c > 0 && len(strings.Fields(t)) <= 4 {
			named = nameLike(t[c+1:])
		}
		end := j
		if !named && strings.HasSuffix(t, ",") && j+1 < len(lines) {
			if nt := strings.TrimSpace(lines[j+1]); nameLike(nt) {
				named, end = true, j+1
			}
		}
		if !named {
			continue
		}
		start := j
		for start > 0 && !marked[start-1] && kinds[start-1] == "" {
			if reGreeting.MatchString(strings.TrimSpace(lines[start])) {
				break
			}
			if strings.TrimSpace(lines[start-1]) == "" && start-2 >= 0 && chatLike(lines[start-2]) && !reGreeting.MatchString(strings.TrimSpace(lines[start-2])) {
				break
			}
			start--
		}
		for k := start; k <= end; k++ {
			if !marked[k] && strings.TrimSpace(lines[k]) != "" {
				kinds[k] = KindEmail
			}
		}
		return
	}
	for i := range lines {
		if marked[i] || !reGreeting.MatchString(strings.TrimSpace(lines[i])) {
			continue
		}
		for j := i + 1; j < len(lines); j++ {
			if !reSignoff.MatchString(strings.TrimSpace(lines[j])) || marked[j] {
				continue
			}
			end := j
			// The name under the sign-off.
			if j+1 < len(lines) && len(strings.Fields(lines[j+1])) <= 3 && strings.TrimSpace(lines[j+1]) != "" && !strings.HasSuffix(strings.TrimSpace(lines[j+1]), "?") {
				end = j + 1
			}
			for k := i; k <= end; k++ {
				if !marked[k] && strings.TrimSpace(lines[k]) != "" {
					kinds[k] = KindEmail
				}
			}
			return
		}
	}
}

var reByline = lazyre.New(`(?i)\((?:edited|written|posted|shared|sent|authored|updated) by [^)]*\)|^\s*(?:FAQ|Q|A|Question|Answer)\s*[:.]\s`)

// chromeWords is a cheap test for the words web-page chrome and bylines
// need.
func chromeWords(t string) bool {
	low := strings.ToLower(t)
	return strings.Contains(low, "skip") || strings.Contains(low, "cookie") || strings.Contains(low, "read") || strings.Contains(low, "contents") ||
		strings.Contains(low, "helpful") || strings.Contains(low, "rights") || strings.Contains(low, "©") || strings.Contains(low, "edit") ||
		strings.Contains(low, "share") || strings.Contains(low, "posted") || strings.Contains(low, "last") || strings.Contains(low, "advert") ||
		strings.Contains(low, "newsletter") || strings.Contains(low, "answered") || strings.Contains(low, "asked") || strings.Contains(low, "re:") ||
		strings.Contains(low, " by ") || strings.Contains(low, "q:") || strings.Contains(low, "a:") || strings.Contains(low, "faq") ||
		strings.Contains(low, "q.") || strings.Contains(low, "a.") || strings.Contains(low, "question") || strings.Contains(low, "answer")
}

// nameLike reports whether s reads as a signature: one to three
// capitalised words, no sentence punctuation.
func nameLike(s string) bool {
	w := strings.Fields(s)
	if len(w) == 0 || len(w) > 3 || strings.ContainsAny(s, "?.!:") {
		return false
	}
	for _, x := range w {
		r := []rune(strings.Trim(x, "()"))
		if len(r) == 0 || !unicode.IsUpper(r[0]) {
			return false
		}
	}
	return true
}

// markChrome makes a paragraph that holds web-page chrome the page.
func markChrome(lines []string, kinds []Kind, marked []bool) {
	for start := 0; start < len(lines); {
		end := start
		for end < len(lines) && strings.TrimSpace(lines[end]) != "" {
			end++
		}
		chrome := false
		for i := start; i < end; i++ {
			t := lines[i]
			if marked[i] {
				t, _ = QuotedLine(strings.TrimSpace(t))
			}
			if chromeWords(t) && (reChrome.MatchString(t) || reByline.MatchString(t)) || strings.ContainsAny(t, "›»") && reCrumb.MatchString(t) {
				chrome = true
			}
		}
		if chrome {
			for i := start; i < end; i++ {
				if !marked[i] {
					kinds[i] = KindWeb
				}
			}
		}
		start = end + 1
	}
}
