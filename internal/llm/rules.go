package llm

import (
	"strings"

	"github.com/odekmem/odekmem/internal/lazyre"
	"github.com/odekmem/odekmem/internal/textutil"
)

// Confidence the rule-based extractor assigns, by type. They sit a little
// below the LLM default (0.8) for the softer patterns.
var ruleConfidence = map[string]float64{
	"preference": 0.8,
	"decision":   0.85,
	"convention": 0.8,
	"goal":       0.8,
	"intent":     0.7,
	"fact":       0.75,
	"question":   0.6,
	"file":       0.7,
	"error":      0.75,
}

const (
	maxRuleFiles = 10
	maxRuleText  = 240 // runes kept from a sentence remainder
)

// ExtractRules is the deterministic extractor used when no LLM is configured
// at all. It splits message into sentences and recognises:
//
//   - preferences: "I prefer/like/love/hate/don't like …", "I'd rather …",
//     "I want you to always …" → "User prefers …"
//   - conventions: "always/never …" (including "please always …"), "we
//     always/never/usually …", "we use X for Y", "our convention is …"
//     → "User convention: …" or "User uses X for Y" ("please always/never"
//     about the assistant's answers is a preference instead)
//   - decisions: "we decided to …", "we'll use …", "let's go with …",
//     "we chose X over Y", "we're switching to …" → "User decided …"
//   - goals: "my goal is …", "we aim to …", "I want to eventually …"
//   - intents: "I'm going to …", "I need/want/plan to …"
//   - facts: "my name is …", "I work at …", "I'm a Go developer", "we use X"
//   - durable questions: wh-questions of four or more words ending in '?'
//     that are not requests ("can you …") and do not point at the
//     conversation ("this", "it")
//   - errors: "error: …", "panic: …", "SomethingError: …", "… keeps failing
//     with …" → type error
//   - file paths: ./internal/auth/jwt.go, src/x.ts, /etc/nginx/nginx.conf,
//     go.mod → type file, "User referenced <path>"
//
// Remainders are turned to the third person ("my" → "their", "you" → "the
// assistant"). Plain commands ("run the tests", "fix this"), requests ("can
// you …") and statements about only "this"/"that"/"it" are never extracted.
// Wrapped untrusted content is removed first (StripUntrusted). Output is
// deduplicated and capped at MaxCandidates.
func ExtractRules(message string) []Candidate {
	out := []Candidate{}
	seen := map[string]bool{}
	add := func(text, typ string) {
		text = cleanText(text, 300)
		if text == "" || len(out) >= MaxCandidates {
			return
		}
		k := strings.ToLower(text)
		if seen[k] {
			return
		}
		seen[k] = true
		out = append(out, Candidate{Text: text, Type: typ, Confidence: ruleConfidence[typ]})
	}
	msg := StripUntrusted(message)
	msg = strings.NewReplacer("\u2019", "'", "\u2018", "'", "\u201c", `"`, "\u201d", `"`).Replace(msg)
	for _, s := range splitSentences(msg) {
		if text, ok := ruleError(s); ok {
			add(text, "error")
			continue
		}
		if text, typ, ok := classifySentence(s); ok {
			add(text, typ)
		}
	}
	for _, p := range findPaths(msg) {
		add("User referenced "+p, "file")
	}
	return out
}

// splitSentences splits on newlines and on . ! ? followed by whitespace.
// The terminator stays with its sentence, so questions keep their '?'.
func splitSentences(s string) []string {
	var out []string
	for _, line := range strings.Split(s, "\n") {
		start := 0
		for i := 0; i < len(line); i++ {
			c := line[i]
			if (c == '.' || c == '!' || c == '?') && (i+1 == len(line) || line[i+1] == ' ' || line[i+1] == '\t') {
				if t := strings.TrimSpace(line[start : i+1]); t != "" {
					out = append(out, t)
				}
				start = i + 1
			}
		}
		if t := strings.TrimSpace(line[start:]); t != "" {
			out = append(out, t)
		}
	}
	return out
}

var (
	reErrKeyword = lazyre.New(`(?i)\b(?:fatal error|error|panic|fatal|exception|traceback)\s*:\s*\S.*`)
	reErrClass   = lazyre.New(`\b[A-Z][A-Za-z0-9_.]*(?:Error|Exception):\s*\S.*`)
	reErrKeeps   = lazyre.New(`(?i)\b(?:keeps?|kept)\s+(?:failing|crashing|breaking|erroring|panicking|timing out)\b`)
)

func ruleError(s string) (string, bool) {
	if m := reErrClass.FindString(s); m != "" {
		return "User encountered " + textutil.Clip(trimSentence(m), maxRuleText), true
	}
	if m := reErrKeyword.FindString(s); m != "" {
		return "User encountered " + textutil.Clip(lowerFirst(trimSentence(m)), maxRuleText), true
	}
	if reErrKeeps.MatchString(s) {
		return "User reported: " + textutil.Clip(toThird(lowerFirst(trimSentence(s))), maxRuleText), true
	}
	return "", false
}

// imperative verbs that start a plain command.
var imperatives = map[string]bool{
	"run": true, "fix": true, "make": true, "add": true, "create": true, "show": true, "open": true,
	"write": true, "delete": true, "remove": true, "update": true, "refactor": true, "explain": true,
	"check": true, "tell": true, "give": true, "help": true, "build": true, "test": true, "deploy": true,
	"rename": true, "move": true, "implement": true, "generate": true, "list": true, "find": true,
	"search": true, "print": true, "install": true, "try": true, "use": true, "look": true, "go": true,
	"do": true, "stop": true, "start": true, "read": true, "review": true, "change": true, "debug": true,
	"set": true, "commit": true, "push": true, "revert": true, "undo": true, "continue": true,
	"let's": true, "lets": true, "can": true, "could": true, "would": true, "will": true, "please": true,
	"summarize": true, "describe": true, "compare": true, "clean": true, "format": true, "lint": true,
	"merge": true, "rebase": true, "send": true, "get": true, "put": true, "keep": true,
}

type rule struct {
	re  *lazyre.Regexp
	fn  func(m []string) (text, typ string, ok bool)
	cmd bool // may match a sentence that starts with an imperative
}

var rules []rule

func rx(s string) *lazyre.Regexp { return lazyre.New(`(?i)` + s) }

var responseWords = rx(`\b(?:answers?|responses?|repl(?:y|ies)|explain\w*|explanations?|emojis?|markdown|verbose|concise|brief|short|tone|ask me|summar\w+|code blocks?|comments?)\b`)

func init() {
	rules = []rule{
		{re: rx(`^never\s*mind\b`), cmd: true, fn: func([]string) (string, string, bool) { return "", "", false }},
		{re: rx(`\bi(?:\s+really)?\s+(?:want|'d like|would like|need)\s+you\s+to\s+(.+)`), cmd: true, fn: func(m []string) (string, string, bool) {
			if !rx(`\b(?:always|never|from now on|going forward|in (?:the )?future|by default|every time)\b`).MatchString(m[1]) {
				return "", "", false // a one-off request
			}
			return "User wants the assistant to " + rem(m[1]), "preference", true
		}},
		{re: rx(`^(?:please\s+)?(?:(?:from now on|going forward|in (?:the )?future),?\s+)?(?:please\s+)?(always|never|don't ever|do not ever)\s+(.+)`), cmd: true, fn: func(m []string) (string, string, bool) {
			adv := strings.ToLower(m[1])
			if adv != "always" {
				adv = "never"
			}
			if responseWords.MatchString(m[2]) {
				return "User wants the assistant to " + adv + " " + rem(m[2]), "preference", true
			}
			return "User convention: " + adv + " " + rem(m[2]), "convention", true
		}},
		{re: rx(`\b(?:my|our|the)\s+(?:(?:long[- ]term|main|ultimate|overall|primary|end|big)\s+)?goal\s+(?:here\s+)?is\s+(to\s+)?(.+)`), fn: func(m []string) (string, string, bool) {
			return "User's goal is " + strings.ToLower(m[1]) + rem(m[2]), "goal", true
		}},
		{re: rx(`\b(?:i|we)\s+aim\s+to\s+(.+)`), fn: func(m []string) (string, string, bool) {
			return "User aims to " + rem(m[1]), "goal", true
		}},
		{re: rx(`\b(?:i|we)\s+(?:want|would like|'d like|hope|plan)\s+to\s+eventually\s+(.+)`), fn: func(m []string) (string, string, bool) {
			return "User wants to eventually " + rem(m[1]), "goal", true
		}},
		{re: rx(`\b(?:eventually|in the long run|long[- ]term),?\s+(?:i|we)\s+(?:want|would like|'d like|hope|plan)\s+to\s+(.+)`), fn: func(m []string) (string, string, bool) {
			return "User wants to eventually " + rem(m[1]), "goal", true
		}},
		{re: rx(`\b(?:i|we)\s+(?:have\s+|'ve\s+)?(?:decided|agreed)\s+(to|on|that|against)\s+(.+)`), fn: func(m []string) (string, string, bool) {
			return "User decided " + strings.ToLower(m[1]) + " " + rem(m[2]), "decision", true
		}},
		{re: rx(`\b(?:i|we)\s+(chose|picked|selected|went with|settled on|opted for)\s+(.+)`), fn: func(m []string) (string, string, bool) {
			return "User " + strings.ToLower(m[1]) + " " + rem(m[2]), "decision", true
		}},
		{re: rx(`^(?:ok(?:ay)?,?\s+|so,?\s+)?let'?s\s+(go with|use|stick with|pick|choose|standardi[sz]e on)\s+(.+)`), cmd: true, fn: func(m []string) (string, string, bool) {
			return "User decided to " + strings.ToLower(m[1]) + " " + rem(m[2]), "decision", true
		}},
		{re: rx(`\bwe(?:'ll| will| are going to|'re going to)\s+(use|go with|switch to|migrate to|stick with|adopt)\s+(.+)`), fn: func(m []string) (string, string, bool) {
			return "User decided to " + strings.ToLower(m[1]) + " " + rem(m[2]), "decision", true
		}},
		{re: rx(`\bwe(?:'re| are)\s+(switching|moving|migrating)\s+((?:from\s+.+?\s+)?to\s+.+)`), fn: func(m []string) (string, string, bool) {
			verb := map[string]string{"switching": "switch", "moving": "move", "migrating": "migrate"}[strings.ToLower(m[1])]
			return "User decided to " + verb + " " + rem(m[2]), "decision", true
		}},
		{re: rx(`\b(?:our|the)\s+(?:team'?s?\s+)?convention\s+(?:here\s+)?is\s+(?:to\s+|that\s+)?(.+)`), fn: func(m []string) (string, string, bool) {
			return "User convention: " + rem(m[1]), "convention", true
		}},
		{re: rx(`\bby convention,?\s+(?:we\s+)?(.+)`), fn: func(m []string) (string, string, bool) {
			return "User convention: " + rem(m[1]), "convention", true
		}},
		{re: rx(`\b(?:we|i)\s+(always|never|usually|typically|normally)\s+(.+)`), fn: func(m []string) (string, string, bool) {
			if pastTense(firstWord(m[2])) {
				return "", "", false // "I never broke a bone": a story, not a rule
			}
			return "User convention: " + strings.ToLower(m[1]) + " " + rem(m[2]), "convention", true
		}},
		{re: rx(`\b(?:we|i)\s+use\s+(.+?)\s+for\s+(.+)`), fn: func(m []string) (string, string, bool) {
			return "User uses " + rem(m[1]) + " for " + rem(m[2]), "convention", true
		}},
		{re: rx(`\bin (?:this|our) (?:repo|repository|project|codebase|team),?\s+we\s+(.+)`), fn: func(m []string) (string, string, bool) {
			return "User convention: " + rem(m[1]), "convention", true
		}},
		{re: rx(`\b(?:i'm|i am|we're|we are)\s+(going to|gonna|planning to|trying to|hoping to)\s+(.+)`), fn: func(m []string) (string, string, bool) {
			v := map[string]string{"going to": "is going to", "gonna": "is going to", "planning to": "plans to",
				"trying to": "is trying to", "hoping to": "hopes to"}[strings.ToLower(m[1])]
			return "User " + v + " " + rem(m[2]), "intent", true
		}},
		{re: rx(`\b(?:i|we)\s+(need|want|plan|intend|have|'d like|would like|hope)\s+to\s+(.+)`), fn: func(m []string) (string, string, bool) {
			v := map[string]string{"need": "needs", "want": "wants", "plan": "plans", "intend": "intends", "have": "has",
				"'d like": "would like", "would like": "would like", "hope": "hopes"}[strings.ToLower(m[1])]
			return "User " + v + " to " + rem(m[2]), "intent", true
		}},
		{re: rx(`\bi(?:'d| would)\s+(?:rather|prefer)\s+(.+)`), fn: func(m []string) (string, string, bool) {
			return "User would rather " + rem(m[1]), "preference", true
		}},
		{re: rx(`\b(?:i|we)\s+(?:really\s+|strongly\s+|generally\s+|usually\s+|much\s+|definitely\s+|also\s+)?(prefer|like|love|hate|dislike|can't stand|cannot stand|don't like|do not like|don't want|do not want|want)\s+(.+)`), fn: func(m []string) (string, string, bool) {
			verb := strings.ToLower(m[1])
			if verb == "want" && rx(`^to\b`).MatchString(m[2]) {
				return "", "", false
			}
			v := map[string]string{"prefer": "prefers", "like": "likes", "love": "loves", "hate": "hates",
				"dislike": "dislikes", "can't stand": "dislikes", "cannot stand": "dislikes", "don't like": "dislikes",
				"do not like": "dislikes", "don't want": "does not want", "do not want": "does not want", "want": "wants"}[verb]
			return "User " + v + " " + rem(m[2]), "preference", true
		}},
		{re: rx(`\bmy\s+(preference|favou?rite\s+[\w-]+)\s+is\s+(.+)`), fn: func(m []string) (string, string, bool) {
			return "User's " + strings.ToLower(m[1]) + " is " + rem(m[2]), "preference", true
		}},
		{re: rx(`\bmy name is\s+(.+)`), fn: func(m []string) (string, string, bool) {
			name := reNameCut.ReplaceAllString(m[1], "")
			return "User's name is " + rem(name), "fact", true
		}},
		{re: rx(`\bi(?:'m| am)\s+an?\s+((?:[\w+#.-]+\s+){0,3}(?:developer|engineer|programmer|designer|student|scientist|architect|administrator|admin|manager|lead|sre|researcher))\b`), fn: func(m []string) (string, string, bool) {
			art := "a "
			if strings.ContainsAny(strings.ToLower(m[1][:1]), "aeiou") {
				art = "an "
			}
			return "User is " + art + rem(m[1]), "fact", true
		}},
		{re: rx(`\bi work (at|for|on|in|with|as)\s+(.+)`), fn: func(m []string) (string, string, bool) {
			return "User works " + strings.ToLower(m[1]) + " " + rem(m[2]), "fact", true
		}},
		{re: rx(`\bour\s+((?:[\w-]+\s+){0,2}(?:stack|backend|frontend|database|db|ci|api|app|service|team|project|repo|monorepo|cluster|server)s?)\s+(is|are|uses|use|runs on|run on|lives in|targets)\s+(.+)`), fn: func(m []string) (string, string, bool) {
			return "User's " + m[1] + " " + strings.ToLower(m[2]) + " " + rem(m[3]), "fact", true
		}},
		{re: rx(`\b(?:i|we)(?:'m|'re| am| are)?\s+(?:use|using)\s+(.+)`), fn: func(m []string) (string, string, bool) {
			return "User uses " + rem(m[1]), "fact", true
		}},
	}
}

var reNameCut = rx(`(?:\s+(?:and|but|so|from|i|i'm)\b|[,;]).*$`)

var deictic = map[string]bool{
	"all": true, "of": true, "things": true, "her": true, "him": true, "you": true, "he": true, "she": true,
	"this": true, "that": true, "it": true, "these": true, "those": true, "them": true, "one": true, "a": true,
	"an": true, "the": true, "lot": true, "very": true, "much": true, "so": true, "too": true, "more": true,
	"better": true, "idea": true, "approach": true, "way": true, "thing": true, "stuff": true, "please": true,
	"now": true, "here": true, "there": true, "again": true, "as": true, "well": true, "do": true, "to": true,
	"fix": true, "check": true, "see": true, "try": true, "go": true, "think": true, "know": true, "later": true,
	"quickly": true, "first": true, "ok": true, "okay": true, "one's": true, "bit": true, "some": true,
	"about": true, "look": true, "at": true, "with": true, "on": true, "in": true, "for": true, "up": true,
}

// contentless reports whether s has no word outside the deictic/filler set.
func contentless(s string) bool {
	for _, w := range strings.Fields(strings.ToLower(s)) {
		w = strings.Trim(w, ".,;:!?\"'()")
		if w != "" && !deictic[w] {
			return false
		}
	}
	return true
}

// rem cleans a captured remainder: trailing punctuation, third person,
// length.
func rem(s string) string {
	return textutil.Clip(toThird(trimSentence(s)), maxRuleText)
}

var (
	reThirdCI = rx(`\b(?:i'm|i've|i'd|i'll|me|my|mine|myself|we're|we've|we'd|we'll|we|us|our|ours|ourselves|you're|you've|you'll|you|your|yours)\b`)
	reThirdI  = lazyre.New(`\bI\b|(?:^|\s)i(?:\s|$)`)
	thirdMap  = map[string]string{
		"i'm": "they're", "i've": "they've", "i'd": "they'd", "i'll": "they'll", "me": "them", "my": "their",
		"mine": "theirs", "myself": "themselves", "we're": "they're", "we've": "they've", "we'd": "they'd",
		"we'll": "they'll", "we": "they", "us": "them", "our": "their", "ours": "theirs", "ourselves": "themselves",
		"you're": "the assistant is", "you've": "the assistant has", "you'll": "the assistant will",
		"you": "the assistant", "your": "the assistant's", "yours": "the assistant's",
	}
)

// toThird rewrites first- and second-person words to the third person.
func toThird(s string) string {
	s = reThirdCI.ReplaceAllStringFunc(s, func(w string) string { return thirdMap[strings.ToLower(w)] })
	return reThirdI.ReplaceAllStringFunc(s, func(w string) string { return strings.Replace(w, strings.TrimSpace(w), "they", 1) })
}

var (
	reRequest  = rx(`^(?:(?:so|ok|okay|hey|and),?\s+)?(?:can|could|would|will|won't)\s+(?:you|u)\b|\bplease\b`)
	reQuestion = rx(`^(?:how|what|why|when|where|which|who|whom|whose|should|is there|are there|does|do|did|is|are|was|were|what's|how's)\b`)
	reDeixis   = rx(`\b(?:this|that|it|here|these|those|them|it's|that's|you|your|you're|yours|u)\b`)
)

func classifySentence(s string) (text, typ string, ok bool) {
	first := strings.ToLower(strings.Trim(firstWord(s), ",.:;!?\"'"))
	command := imperatives[first]
	for _, r := range rules {
		if command && !r.cmd {
			continue
		}
		m := r.re.FindStringSubmatch(s)
		if m == nil {
			continue
		}
		text, typ, ok := r.fn(m)
		if !ok {
			return "", "", false
		}
		// The statement must carry content beyond "this/that/it".
		if contentless(m[len(m)-1]) {
			return "", "", false
		}
		return text, typ, true
	}
	if command || !strings.HasSuffix(s, "?") {
		return "", "", false
	}
	q := trimSentence(s)
	if reRequest.MatchString(q) || !reQuestion.MatchString(q) || reDeixis.MatchString(q) || len(strings.Fields(q)) < 4 {
		return "", "", false
	}
	q = strings.TrimRight(q, "?! ")
	return "User asked: " + textutil.Clip(lowerFirst(q), maxRuleText) + "?", "question", true
}

var irregularPast = setOf(`broke went did had was were saw got made took gave came ran ate wrote thought knew felt found left told`)

func pastTense(w string) bool {
	w = strings.ToLower(w)
	return irregularPast[w] || (len(w) > 4 && strings.HasSuffix(w, "ed") && !strings.HasSuffix(w, "eed"))
}

func firstWord(s string) string {
	if f := strings.Fields(s); len(f) > 0 {
		return f[0]
	}
	return ""
}

var (
	reURL      = rx(`\b(?:https?|ftp|file|ssh|git)://\S+`)
	rePath     = lazyre.New("(?:^|[\\s\"'`(\\[<=])((?:~|\\.{1,2})?/?(?:[A-Za-z0-9_@+-][A-Za-z0-9_.@+-]*/)+[A-Za-z0-9_.@+-]*)")
	reBareFile = lazyre.New("(?:^|[\\s\"'`(\\[<=])([A-Za-z0-9_][A-Za-z0-9_.-]*\\.(?:go|mod|sum|ts|tsx|js|jsx|mjs|cjs|py|rs|rb|java|kt|kts|swift|c|h|cc|cpp|hpp|cs|php|scala|json|yaml|yml|toml|ini|cfg|conf|env|md|rst|txt|sql|sh|bash|zsh|ps1|proto|tf|lock|html|css|scss|vue|svelte|xml|gradle|mk)|Makefile|Dockerfile|Justfile|\\.env|\\.gitignore)(?:$|[\\s\"'`)\\]>,;:!?]|\\.)")
	reExt      = lazyre.New(`\.[A-Za-z][A-Za-z0-9]{0,6}$`)
	techNames  = map[string]bool{"node.js": true, "vue.js": true, "next.js": true, "nuxt.js": true, "react.js": true,
		"express.js": true, "three.js": true, "d3.js": true, "chart.js": true, "ember.js": true, "angular.js": true,
		"backbone.js": true, "deno.js": true, "p5.js": true, "asp.net": true}
)

// findPaths returns file paths and file names referenced in s, in order,
// without duplicates. URLs are ignored.
func findPaths(s string) []string {
	s = reURL.ReplaceAllString(s, " ")
	var out []string
	seen := map[string]bool{}
	push := func(p string) {
		p = strings.TrimRight(p, ".,:;")
		if p == "" || seen[p] || len(out) >= maxRuleFiles || len(p) > 200 {
			return
		}
		seen[p] = true
		out = append(out, p)
	}
	type hit struct {
		at int
		p  string
	}
	var hits []hit
	for _, m := range rePath.FindAllStringSubmatchIndex(s, -1) {
		p := strings.TrimRight(s[m[2]:m[3]], ".,:;")
		if strings.Contains(p, "//") || strings.Count(p, "/") == 0 {
			continue
		}
		rooted := strings.HasPrefix(p, "/") || strings.HasPrefix(p, "./") || strings.HasPrefix(p, "../") || strings.HasPrefix(p, "~/")
		last := p[strings.LastIndex(p, "/")+1:]
		if rooted && len(strings.Trim(p, "/.~")) == 0 {
			continue
		}
		if !rooted && !reExt.MatchString(last) && !strings.HasSuffix(p, "/") {
			continue // "and/or", "client/server", "req/s"
		}
		hits = append(hits, hit{m[2], p})
	}
	for _, m := range reBareFile.FindAllStringSubmatchIndex(s, -1) {
		p := s[m[2]:m[3]]
		if techNames[strings.ToLower(p)] {
			continue
		}
		hits = append(hits, hit{m[2], p})
	}
	// order of appearance
	for i := 1; i < len(hits); i++ {
		for j := i; j > 0 && hits[j].at < hits[j-1].at; j-- {
			hits[j], hits[j-1] = hits[j-1], hits[j]
		}
	}
	for _, h := range hits {
		push(h.p)
	}
	return out
}

// RuleType returns the type the rule-based extractor gives one sentence
// (a preference, decision, convention, goal, intent, fact or question), or
// "" when no rule matches. It skips the extractor's error and file-path
// rules and its rewording: the judgement of provenance uses it as one
// feature among many.
func RuleType(sentence string) string {
	s := strings.NewReplacer("\u2019", "'", "\u2018", "'", "\u201c", `"`, "\u201d", `"`).Replace(strings.TrimSpace(sentence))
	if _, typ, ok := classifySentence(s); ok {
		return typ
	}
	return ""
}
