package scan

import (
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

// The scored detector. Pattern rules (inject.go) name known attack
// phrasings; the scored detector asks a more general question: does this
// text address the agent and try to change what it does? It finds features
// in each sentence (see lexicon.go and the regular expressions below),
// adds their weights over a window of two adjacent sentences, and blocks
// when the sum reaches scoreThreshold. The finding names every feature
// that contributed, so a reviewer sees why.

type feat uint8

const (
	fOverride feat = iota // ignore/forget/disregard … what the agent was told
	fInstr
	fPrior
	fObsolete
	fAgent    // explicit name for the agent: assistant, AI, model, agent, bot
	fYou      // second person
	fVocative // the sentence is addressed to the agent ("Assistant, …", "Note to the AI: …")
	fNewRules
	fSecret
	fExfil
	fSink // URL, e-mail address, IP address, clipboard, paste bin
	fConceal
	fPerson
	fDeceive
	fPersona
	fPrivilege
	fDestructive
	fRun
	fModal
	fRole       // chat role markers
	fRemoteExec // a download piped into an interpreter
	fInsecureRegistry
	fImperative   // the sentence starts with an action verb
	fHTMLActive   // event handlers / javascript: URLs that call out
	fHTMLHidden   // text hidden from a human reader by CSS or the hidden attribute
	fPersonalData // asks for someone's personal data
	fTranscript   // a fabricated dialogue (Q:/A: or User:/Assistant: turns)
	fDecodeAsk    // asks to decode an encoded message and act on or repeat it
	fRestriction  // "I know you were told not to …, but"
	fHijack       // "Forget about that, can you …"
	fAnswerSet    // dictates the answer ("let's say the capital is …", "the output could be '10'")
	fFraming      // hypothetical framing ("in a parallel universe", "imagine", "for the purpose of this exercise")
	nFeat
)

// standaloneWeights are the features that count on their own, whatever
// else the window holds, in the order their reasons are listed.
var standaloneWeights = []struct {
	f feat
	w float64
}{
	{fHTMLActive, 3.0}, {fHTMLHidden, 1.5}, {fPersonalData, 3.0}, {fTranscript, 3.0},
	{fDecodeAsk, 3.0}, {fRestriction, 3.0}, {fHijack, 3.0},
}

var featName = [nFeat]string{
	fOverride: "override", fInstr: "instructions", fPrior: "previous", fObsolete: "declared_void", fAgent: "names_the_agent",
	fYou: "second_person", fVocative: "addresses_the_agent", fNewRules: "new_regime", fSecret: "secret", fExfil: "send_or_show",
	fSink: "exfiltration_sink", fConceal: "concealment", fPerson: "the_person", fDeceive: "deceive_the_person", fPersona: "persona",
	fPrivilege: "privilege_claim", fDestructive: "destructive_action", fRun: "run", fModal: "duty", fRole: "role_marker",
	fRemoteExec: "remote_code_execution", fInsecureRegistry: "untrusted_package_source", fImperative: "imperative",
	fHTMLActive: "active_html", fPersonalData: "personal_data_request", fHTMLHidden: "hidden_html", fRestriction: "acknowledged_restriction", fHijack: "topic_hijack", fAnswerSet: "dictated_answer", fFraming: "hypothetical_framing", fTranscript: "fabricated_dialogue", fDecodeAsk: "decode_request",
}

// scoreThreshold is the block threshold, calibrated on the developer and
// chat corpora (false blocks) and CyberSecEval (detection): see doc.go and
// BENCHMARKS.md.
const scoreThreshold = 3.0

type lexEntry struct {
	words []string
	stem  bool // last word is a prefix
	f     feat
}

type lexIndex struct {
	byKey map[string][]*lexEntry
	subs  [][]string // per feature: entries matched as substrings
	// subHigh[f] holds substring entries that need a byte >= 0xD6
	// (scripts without word spacing); the rest contain punctuation.
}

// lexTable is the lexicon index, built on first use (lexicon.go's lists
// folded and keyed): a process that never scans never builds it.
var lexTable = sync.OnceValue(buildLex)

func lexKey(w string) string {
	if len(w) > 3 {
		return w[:3]
	}
	return w
}

// needsSubstring reports entries matched as substrings: scripts without
// spaces or with affixes, and entries holding punctuation.
func needsSubstring(e string) bool {
	for _, r := range e {
		switch {
		case r == ' ' || r == '\'' || r == '*':
		case r >= 0x0590 && r <= 0x06FF, r >= 0x0900 && r <= 0x0DFF, r >= 0x0E00 && r <= 0x0FFF,
			r >= 0x1100 && r <= 0x11FF, r >= 0x2E80 && r <= 0x9FFF, r >= 0xAC00 && r <= 0xD7AF, r >= 0xF900 && r <= 0xFAFF, r >= 0xFF00:
			return true
		case !unicode.IsLetter(r) && !unicode.IsDigit(r) && !unicode.IsMark(r):
			return true
		}
	}
	return false
}

func buildLex() *lexIndex {
	li := &lexIndex{byKey: map[string][]*lexEntry{}, subs: make([][]string, nFeat)}
	add := func(f feat, list []string) {
		for _, e := range list {
			e = foldPattern(e)
			if needsSubstring(e) {
				li.subs[f] = append(li.subs[f], strings.TrimSuffix(e, "*"))
				continue
			}
			stem := strings.HasSuffix(e, "*")
			e = strings.TrimSuffix(e, "*")
			ws := strings.Fields(e)
			if len(ws) == 0 {
				continue
			}
			le := &lexEntry{words: ws, stem: stem, f: f}
			k := lexKey(ws[0])
			li.byKey[k] = append(li.byKey[k], le)
		}
	}
	add(fOverride, lexOverride)
	add(fInstr, lexInstr)
	add(fPrior, lexPrior)
	add(fObsolete, lexObsolete)
	add(fAgent, lexAgent)
	add(fNewRules, lexNewRules)
	add(fSecret, lexSecret)
	add(fExfil, lexExfil)
	add(fSink, lexSink)
	add(fConceal, lexConceal)
	add(fPerson, lexPerson)
	add(fDeceive, lexDeceive)
	add(fPersona, lexPersona)
	add(fPrivilege, lexPrivilege)
	add(fDestructive, lexDestructive)
	add(fRun, lexRun)
	add(fModal, lexModal)
	return li
}

var (
	reURL       = rx(`(?:https?|ftp)://[^\s]+|\b(?:\d{1,3}\.){3}\d{1,3}\b|[a-z0-9._%+-]+@[a-z0-9-]+(?:\.[a-z0-9-]+)*\.[a-z]{2,}`)
	reRemoteRun = rx("(?:\\b(?:curl|wget|iwr|irm|invoke-webrequest|invoke-restmethod|fetch)\\b[^|\\n]{0,240}\\|\\s*(?:sudo\\s+)?(?:sh|bash|zsh|ksh|dash|ash|python3?|perl|ruby|node|php|iex|invoke-expression|pwsh|powershell|source)\\b)" +
		"|(?:\\b(?:sh|bash|zsh|source)\\s*<\\(\\s*(?:curl|wget))" +
		"|(?:\\b(?:sh|bash|zsh)\\s+-c\\s+[\"']?\\$\\(\\s*(?:curl|wget))" +
		"|(?:\\b(?:iex|invoke-expression)\\b[^\\n]{0,20}(?:iwr|irm|invoke-webrequest|invoke-restmethod|downloadstring|net\\.webclient))" +
		"|(?:\\b(?:curl|wget)\\b[^;&|\\n]{0,200}(?:-o|-O|--output)\\s*\\S+\\s*(?:&&|;)\\s*(?:sh|bash|chmod\\s+\\+x|\\./))" +
		"|(?:\\bbase64\\s+(?:-d|--decode|-D)\\b[^\\n]{0,40}\\|\\s*(?:sh|bash|zsh|python3?))")
	reInsecureRegistry = rx(`--(?:extra-)?index-url[ =]+http://|--trusted-host\b|registry(?: |=)+["']?http://|npm config set registry http://|pip(?:3)? install [^\n]{0,80}http://`)
	reRole             = rx(`(?:^|[\s\[(<#*>|])(?:system|sys|system notice|system message|system override|developer|admin override|assistant|human|user|ai)\s*(?:\]|\|>|>)?\s*:|\[(?:system|sys|inst|admin)\]|<\|[a-z_]+\|>|#{2,4} ?(?:system|instructions?)\b|` + "```" + `\s*system\b`)
	reVocative         = rx(`^(?:(?:hey|hi|dear|attention|listen(?: carefully)?|important|reminder|note|message|hidden task|instructions?|notice)(?: (?:to|for))?,? (?:the |any |all |this |our )?(?:ai|assistant|agent|model|language model|llm|bot|chatbot|ai agent|ai assistant|ai models?|coding assistant|llms)s?\b|(?:to|for) (?:the |any |all )?(?:ai|assistant|agent|model|language model|llm|bot|ai agent|ai models?)s?\b|(?:ai|assistant|agent|model|llm|bot|ai agent|ai assistant|chatgpt|claude|copilot|odek)\s*[,:]|if you are (?:an? )?(?:ai|assistant|agent|language model|llm|bot|chatbot)\b|(?:when|whenever|if) (?:you|the (?:ai|assistant|agent|model)) (?:read|see|process|encounter)s? this|as (?:the|an) (?:ai|assistant|agent|model)\b)`)
	reAgentDuty        = rx(`\b(?:the |any |every |all )?(?:assistant|ai|agent|model|bot|llm|language model|ai agent)s? (?:must|should|shall|will|has to|needs to|is (?:required|expected|permitted|allowed) to|may now|can now)\b`)
	reHTMLActive       = rx(`\bon(?:load|error|click|mouseover|focus)\s*=\s*["']?[^"'>]{0,200}(?:fetch|xmlhttprequest|navigator\.|document\.cookie|localstorage|eval|location|atob|clipboard)|javascript:[^\s)]{0,200}(?:fetch|cookie|localstorage|eval|location|clipboard)|<\s*script\b[^>]{0,200}>[^<]{0,300}(?:fetch|xmlhttprequest|document\.cookie|localstorage|navigator\.|eval\(|location)|<\s*iframe\b[^>]{0,200}\bsrc\s*=\s*["']?(?:https?:)?//`)
	reHTMLHidden       = rx(`display\s*:\s*none|font-size\s*:\s*0|visibility\s*:\s*hidden|opacity\s*:\s*0[;"' ]|<(?:span|div|p|section)\b[^>]{0,40}\bhidden\b`)
	rePersonalData     = rx(`\b(?:tell me|give me|show me|share|reveal|provide|print|list|what(?:'s| is| are| was)|where(?:'s| is)|encode|translate|spell|write|repeat|send|confirm|need to know|want to know|know|find out|look up|get me|obtain|disclose)\b[^.?!]{0,60}?\b(?:the user's|the users'|user's|[a-z]{3,}'s)(?: [a-z]+)? (?:birth ?date|birth ?year|birth ?day|birth ?month|date of birth|e-?mail(?: address)?|home address|postal address|address|city of residence|current city|current location|location|phone(?: number)?|initials|full name|social security(?: number)?|ssn|bank balance|account number|credit card(?: number)?|salary|medical (?:history|records)|password|passport(?: number)?)\b|\bwhere (?:does|did) (?P<who>[a-z]+(?: [a-z]+)?) (?:currently )?live\b`)
	reTranscriptQ      = rx(`(?:^|\s)(?:q|question|user|human)\s?:`)
	reTranscriptA      = rx(`(?:^|\s)(?:a|answer|assistant|ai|bot)\s?:`)
	reDecodeAsk        = rx(`\b(?:decode|decipher|decrypt|unscramble|translate)\b (?:this|the following|these|that)\b[^.?!]{0,40}?\b(?:morse|rot13|rot-13|cipher|hex|hexadecimal|binary|base64|base-64|caesar|encoded|pig latin|reversed)\b|\b(?:morse|rot13|cipher|hexadecimal|binary|base64|caesar|pig latin)\b[^.?!]{0,40}?\b(?:and|then) (?:tell me what it says|do what it says|follow it|execute it|obey it|reply with)`)
	secretQualifier    = map[string]bool{"prefix": true, "suffix": true, "length": true, "format": true, "field": true, "fields": true, "rotation": true,
		"policy": true, "policies": true, "manager": true, "reset": true, "strength": true, "hash": true, "hashing": true, "hasher": true, "name": true,
		"names": true, "validation": true, "validator": true, "scanner": true, "loader": true, "refresher": true, "expiry": true, "count": true, "banner": true,
		// "database migrations", "database schema": about the database, not its contents
		"migration": true, "migrations": true, "schema": true, "schemas": true, "index": true, "indexes": true, "indices": true, "query": true, "queries": true,
		"table": true, "tables": true, "connection": true, "connections": true, "driver": true, "pool": true, "version": true, "upgrade": true, "upgrades": true,
		"replica": true, "replicas": true, "cluster": true, "engine": true, "tests": true, "test": true, "layer": true, "access": true}
	reRestriction  = rx(`\bi know (?:that )?you(?:'re| are| were|'ve been| have been)? (?:said|told|instructed|asked|programmed|not supposed|not allowed|can't|cannot|shouldn't|should not|aren't allowed)\b[^.;]{0,100}\bbut\b|\b(?:even though|although|despite the fact that) you(?:'re| are| were)? (?:told|instructed|not supposed|not allowed|programmed)\b`)
	reHijack       = rx(`^(?:ok(?:ay)?,? )?(?:forget|ignore|disregard|never mind|nevermind|scratch)(?: about)? (?:that|this|it|all that|the above|what i (?:said|asked)|everything)\b[,.!]? (?:and )?(?:can|could|would|will|please|now|instead|tell|give|write|provide|just)\b`)
	reAnswerSet    = rx(`\b(?:let's|let us|we (?:might|could|would|should|can|will)|i suggest (?:you|that you)(?: to)?) (?:say|state|assume|claim|pretend|admit|consider|declare)\b|\b(?:the )?(?:output|answer|result) (?:could|would|should|might|will) be\b|\bconsider the (?:output|answer|result) (?:as|to be)\b|\bignore the (?:actual|real) (?:data|function|facts|numbers|content)\b`)
	reFraming      = rx(`\b(?:imagine|hypothetical(?:ly)?|suppose|in a (?:parallel|different|alternate|fictional) (?:universe|world|reality)|in a world where|for the purpose of this exercise|to make this (?:more )?(?:interesting|authentic|fun)|to challenge the status quo|for the sake of argument|as an authority)\b`)
	permissionWord = map[string]bool{"allowed": true, "permitted": true, "able": true, "authorized": true, "authorised": true, "cleared": true, "welcome": true}
	negWords       = map[string]bool{"not": true, "never": true, "don't": true, "dont": true, "no": true, "doesn't": true, "didn't": true, "won't": true, "shouldn't": true, "mustn't": true, "can't": true, "cannot": true, "avoid": true, "without": true}
)

// sentence is one sentence of a view, with its features.
type sentence struct {
	has  [nFeat]bool
	hits [nFeat]int
	// token positions of the first override verb and the last
	// instruction noun (-1: none, or found only as a substring)
	firstOverride, lastInstr int
}

// tokens splits a sentence of the view into words: letters, digits, marks,
// '_' and inner apostrophes.
func tokenize(s string, out []string) []string {
	out = out[:0]
	start := -1
	for i, r := range s {
		w := unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsMark(r) || r == '_' || (r == '\'' && start >= 0)
		if w {
			if start < 0 {
				start = i
			}
			continue
		}
		if start >= 0 {
			out = append(out, strings.TrimRight(s[start:i], "'"))
			start = -1
		}
	}
	if start >= 0 {
		out = append(out, strings.TrimRight(s[start:], "'"))
	}
	return out
}

// negatedAt reports a negation within the two words before token i.
func negatedAt(toks []string, i int) bool {
	for k := i - 1; k >= 0 && k >= i-2; k-- {
		if negWords[toks[k]] {
			return true
		}
		if k > 0 && toks[k] == "not" || (k > 0 && toks[k-1] == "do" && toks[k] == "not") {
			return true
		}
	}
	return false
}

func (sn *sentence) set(f feat) {
	sn.has[f] = true
	sn.hits[f]++
}

// features fills sn from one sentence of the view.
func features(s string, toks []string, sn *sentence, first bool) {
	lex := lexTable()
	for i, t := range toks {
		for _, e := range lex.byKey[lexKey(t)] {
			if !matchEntry(toks, i, e) {
				continue
			}
			switch e.f {
			case fExfil, fRun, fOverride, fDeceive, fPrivilege, fDestructive, fPersona, fNewRules:
				if negatedAt(toks, i) && !(e.f == fOverride && len(e.words) > 1 && negWords[e.words[0]]) {
					continue
				}
			}
			f := e.f
			if f == fSecret && i+len(e.words) < len(toks) && secretQualifier[toks[i+len(e.words)]] {
				continue // "the API key prefix", "password policy": about the secret, not the secret
			}
			if f == fConceal && e.words[0] == "without" && len(e.words) == 2 && (e.words[1] == "asking" || e.words[1] == "confirmation") && permittedBefore(toks, i) {
				continue // "you may format files without asking": a scoped permission, not concealment
			}
			if n := len(e.words); f == fPersona && n >= 2 && e.words[n-1] == "now" && i+n < len(toks) && permissionWord[toks[i+n]] {
				continue // "you are now allowed to edit …": a permission, not a persona
			}
			if f == fAgent && (t == "you" || t == "your" || t == "yourself") {
				if t == "your" {
					continue // possessive: "your local .env" addresses no one in particular
				}
				f = fYou
			}
			sn.set(f)
			switch f {
			case fOverride:
				if sn.firstOverride < 0 {
					sn.firstOverride = i
				}
			case fInstr:
				sn.lastInstr = i
			}
		}
	}
	high := false
	for i := 0; i < len(s); i++ {
		if s[i] >= 0xD6 {
			high = true
			break
		}
	}
	for f := feat(0); f < nFeat; f++ {
		for _, e := range lex.subs[f] {
			if e[0] >= 0xD6 && !high {
				continue
			}
			if strings.Contains(s, e) {
				sn.set(f)
			}
		}
	}
	if len(toks) > 0 {
		t0 := toks[0]
		for _, e := range lex.byKey[lexKey(t0)] {
			if (e.f == fOverride || e.f == fExfil || e.f == fRun) && matchEntry(toks, 0, e) {
				sn.set(fImperative)
				break
			}
		}
	}
	head := s[:min(len(s), 160)]
	if containsAny(head, "ai", "assistant", "agent", "model", "llm", "bot", "gpt", "claude", "copilot", "odek", "you") && reVocative.MatchString(head) {
		sn.set(fVocative)
		// "Assistant, send …": the verb after the vocative is an imperative.
		if k := strings.IndexAny(s, ",:"); k > 0 && k < 40 {
			rest := tokenize(s[k+1:min(len(s), k+80)], nil)
			if len(rest) > 0 {
				for _, e := range lex.byKey[lexKey(rest[0])] {
					if (e.f == fOverride || e.f == fExfil || e.f == fRun || e.f == fConceal) && matchEntry(rest, 0, e) {
						sn.set(fImperative)
						break
					}
				}
			}
		}
	}
	// The regular expressions below only run when a cheap substring test
	// says they could match: most sentences pay for none of them.
	if (sn.has[fAgent] || strings.Contains(s, "ai ")) && reAgentDuty.MatchString(s) {
		sn.set(fVocative)
	}
	if (containsAny(s, "://", "@", "www.") || hasDottedNumber(s)) && reURL.MatchString(s) {
		sn.set(fSink)
	}
	if containsAny(s, "curl", "wget", "iwr", "irm", "invoke-", "iex", "base64", "fetch") && reRemoteRun.MatchString(s) {
		sn.set(fRemoteExec)
	}
	if containsAny(s, "http://", "trusted-host") && reInsecureRegistry.MatchString(s) {
		sn.set(fInsecureRegistry)
	}
	if containsAny(s, "<", "javascript:") && reHTMLActive.MatchString(s) {
		sn.set(fHTMLActive)
	}
	if containsAny(s, "display", "font-size", "visibility", "opacity", "hidden") && reHTMLHidden.MatchString(s) {
		sn.set(fHTMLHidden)
	}
	if containsAny(s, "system", "sys]", "assistant", "human", "user", "developer", "admin", "ai:", "ai :", "ai]", "[inst]", "<|", "##") && reRole.MatchString(s) {
		sn.set(fRole)
	}
	if containsAny(s, "'s ", "s' ", " live") {
		if m := rePersonalData.FindStringSubmatch(s); m != nil && !pronounOrKin(m[rePersonalData.SubexpIndex("who")]) {
			sn.set(fPersonalData)
		}
	}
	if containsAny(s, "i know", "even though", "although", "despite") && reRestriction.MatchString(s) {
		sn.set(fRestriction)
	}
	if containsAny(s, "let", "we ", "output", "answer", "result", "suggest", "actual", "real") && reAnswerSet.MatchString(s) {
		sn.set(fAnswerSet)
	}
	if reFraming.MatchString(s) {
		sn.set(fFraming)
	}
	if first && reHijack.MatchString(s) {
		sn.set(fHijack)
	}
	if containsAny(s, "decod", "deciph", "decrypt", "unscramble", "translate", "morse", "rot13", "rot-13", "cipher", "binary", "base64", "base-64", "caesar", "pig latin", "hex") && reDecodeAsk.MatchString(s) {
		sn.set(fDecodeAsk)
	}
}

// permittedBefore reports a permission ("may", "can", "allowed to",
// "permitted to", "free to") in the ten words before token i.
func permittedBefore(toks []string, i int) bool {
	for k := i - 1; k >= 0 && k >= i-10; k-- {
		switch toks[k] {
		case "may", "can", "allowed", "permitted", "free":
			return true
		}
	}
	return false
}

// pronounOrKin: "where does he live", "where does your sister live" ask
// about someone the speaker knows, not for a third party's data.
func pronounOrKin(who string) bool {
	if who == "" {
		return false
	}
	first := strings.Fields(who)[0]
	switch first {
	case "he", "she", "it", "they", "your", "my", "his", "her", "their", "our", "the", "this", "that", "everyone", "everybody", "one", "someone", "santa":
		return true
	}
	return false
}

// hasDottedNumber reports a digit, a dot and a digit (an IP address).
func hasDottedNumber(s string) bool {
	for i := 1; i+1 < len(s); i++ {
		if s[i] == '.' && s[i-1] >= '0' && s[i-1] <= '9' && s[i+1] >= '0' && s[i+1] <= '9' {
			return true
		}
	}
	return false
}

func containsAny(s string, subs ...string) bool {
	for _, x := range subs {
		if strings.Contains(s, x) {
			return true
		}
	}
	return false
}

func matchEntry(toks []string, i int, e *lexEntry) bool {
	if i+len(e.words) > len(toks) {
		return false
	}
	last := len(e.words) - 1
	for k, w := range e.words {
		t := toks[i+k]
		if k == last && e.stem {
			if !strings.HasPrefix(t, w) {
				return false
			}
			continue
		}
		if t != w {
			return false
		}
	}
	return true
}

// splitSentences cuts the view at sentence punctuation followed by a space
// (or the end), and at CJK full stops.
func splitSentences(v string) []string {
	var out []string
	start := 0
	for i := 0; i < len(v); {
		r, n := utf8.DecodeRuneInString(v[i:])
		end := false
		switch r {
		case '.', '!', '?', ';':
			end = i+n >= len(v) || v[i+n] == ' '
		case '。', '！', '？', '；':
			end = true
		}
		i += n
		if end {
			if s := strings.TrimSpace(v[start:i]); s != "" {
				out = append(out, s)
			}
			start = i
		}
	}
	if s := strings.TrimSpace(v[start:]); s != "" {
		out = append(out, s)
	}
	return out
}
