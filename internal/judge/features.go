package judge

import (
	"math"
	"strings"
	"unicode"

	"github.com/odekmem/odekmem/internal/lazyre"
	"github.com/odekmem/odekmem/internal/llm"
	"github.com/odekmem/odekmem/internal/provenance"
)

// Dense are the names of the features the model reads beside the hashed
// n-grams of a segment's text, in order. Each is in [0, 1]. They are what
// the analyser and the old rules know about a sentence; the model weighs
// them.
var Dense = []string{
	"rule",               // the rule-based extractor finds a statement in it
	"opens_polarity",     // opens with always, never, don't, do not, no, only, avoid
	"opens_verb",         // opens with a bare verb (a command)
	"we",                 // we, our, us
	"i",                  // I, my, me
	"you",                // you, your
	"generic",            // every, all, any, always, never, only, by default, from now on …
	"transient",          // today, now, right now, currently, this PR, for now …
	"deixis",             // this, that, it, these, those, here
	"past",               // just, already, yesterday, a past-tense verb
	"readers",            // users, developers, contributors … should/must
	"hedge",              // think, probably, guess, not sure, seems
	"modal",              // must, should, need to, have to, required
	"length",             // words / 40, at most 1
	"short",              // four words or fewer
	"code",               // share of code-like tokens
	"unsure",             // the analyser is unsure whose words these are
	"emotion",            // lol, haha, ugh, !, emoji
	"chitchat",           // thanks, ok, cool, nice, lgtm
	"negation",           // not, n't, no, never, nothing
	"fact_copula",        // "<name> is/are/runs on/uses …"
	"first",              // the message's first segment
	"cut",                // cut from a longer sentence
	"please",             // please, pls
	"lets",               // opens with let's
	"digits",             // holds a number or a version
	"names",              // capitalised words inside the sentence, /3
	"rule_change",        // delete/remove/forget/drop the rule/convention
	"second_person_rule", // you should/must/need to
	"verb_generic",       // a command over everything ("Always seed the RNG", "Use tabs everywhere")
	"verb_specific",      // a command about one thing ("Rewrite this function", "fix cart_test.go")
	"state_now",          // a state of the moment ("is failing", "is down", "keeps crashing")
	"path",               // names a file or a path
	"future_once",        // I'll / we'll / going to: a plan for now
	"prev_rule",          // the clause before in the message states a rule
	"msg_rule",           // another clause of the message states a rule
	"deadline",           // until 6pm, by Thursday, this week: bound to a date
	"bare_short",         // three words or fewer and no name or code in them
}

var (
	fOpensPol     = setOf(`always never don't dont do no only avoid nobody nothing every all`)
	fVerbs        = setOf(`run fix make add create show open write delete remove update refactor explain check tell give help build test deploy rename move implement generate list find search print install try use look go stop start read review change debug set commit push revert undo continue summarize summarise describe compare clean format lint merge rebase send get put keep split convert translate rewrite bump document walk skip let's lets put double take finish port load plot chart draft reword triage estimate break extract simplify improve close approve reject sort count parse drop`)
	fWe           = setOf(`we we're we've we'd we'll our ours us`)
	fI            = setOf(`i i'm i've i'd i'll my mine me myself`)
	fYou          = setOf(`you your you're you've yours u`)
	fGeneric      = setOf(`every everything everywhere everyone all any anything always never only default nothing none whenever each`)
	fTransient    = setOf(`today tonight now currently yesterday tomorrow morning afternoon evening later temporarily moment minute`)
	fDeixis       = setOf(`this that it these those here there it's that's`)
	fPast         = setOf(`just already yesterday was were did got went had earlier ago`)
	fHedge        = setOf(`think probably guess maybe perhaps seems seem sure believe assume suspect`)
	fModal        = setOf(`must should need needs required mandatory have has`)
	fEmotion      = setOf(`lol haha lmao ugh wow yay omg oops meh hmm`)
	fChit         = setOf(`thanks thank ok okay cool nice great lgtm perfect awesome sorry hi hello morning bye`)
	fNeg          = setOf(`not no never nothing none nobody don't doesn't didn't isn't aren't won't can't cannot shouldn't mustn't wasn't weren't dont`)
	reReaders     = lazyre.New(`\b(?:users?|developers?|engineers?|contributors?|maintainers?|operators?|administrators?|admins?|integrators?|partners?|customers?|clients?|everyone|teams?)\s+(?:\w+\s+)?(?:should|must|shall|need to|are (?:required|expected) to|may|can)\b`)
	reCopula      = lazyre.New(`^(?:\W*(?:the|our|my|all|every)\s+)?[\w.\-/@' ]{1,40}?\s(?:is|are|runs|run|uses|use|lives|live|targets|target|ships|ship|talks|talk|goes|go|sits|deploys|deploy|stays|stay|has|have|owns|own)\b`)
	reTransient   = lazyre.New(`\b(?:right now|for now|at the moment|this (?:pr|branch|file|one|session|commit|time|week|sprint|afternoon|morning)|for this|a minute ago|just now|in this pr)\b`)
	reRuleChange  = lazyre.New(`\b(?:delete|remove|forget|drop|scrap|ignore|kill)\s+(?:the|that|this|our)\s+(?:rule|convention|guideline|policy|requirement)\b`)
	reYouRule     = lazyre.New(`\byou\s+(?:should|must|need to|have to|shall)\b`)
	reGenericPhr  = lazyre.New(`\b(?:from now on|going forward|by default|in general|as a rule|no exceptions|in this (?:repo|codebase|project|team)|on this team|here|in (?:your|the|my|our|all|every) (?:answers?|replies|responses?|code|docs?|tests?|commits?|reviews?|prs?|copy|ui|apis?|logs?|codebase|repo|services?|endpoints?)|(?:new|all|every|any) (?:code|modules?|files?|services?|endpoints?|components?|tests?|tables?|migrations?|prs?)|with me|for me|to me)\b`)
	reDigits      = lazyre.New(`\d`)
	codeChars     = "_./()=`<>{}[]$#@:"
	emojiRangeLow = rune(0x1F300)
)

func setOf(words string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(words) {
		m[w] = true
	}
	return m
}

// words is the lower-cased words of s: runs of letters, digits, '_' and
// apostrophes (the curly one made straight).
func words(s string) []string {
	var ws []string
	var b strings.Builder
	flush := func() {
		if b.Len() > 0 {
			ws = append(ws, b.String())
			b.Reset()
		}
	}
	for _, r := range s {
		switch {
		case r == '’':
			b.WriteByte('\'')
		case r == '\'' || r == '_' || unicode.IsLetter(r) || unicode.IsNumber(r):
			b.WriteRune(unicode.ToLower(r))
		default:
			flush()
		}
	}
	flush()
	return ws
}

// ruleLike reports whether a clause states a rule by its words alone: it
// opens with a polarity word or holds a generic quantifier or a modal.
func ruleLike(text string) bool {
	w := words(text)
	if len(w) == 0 {
		return false
	}
	if fOpensPol[w[0]] {
		return true
	}
	for _, x := range w {
		if fGeneric[x] || x == "must" || x == "should" {
			return true
		}
	}
	return reGenericPhr.MatchString(strings.ToLower(text))
}

// context is what the other clauses of a message say about one of them.
type context struct {
	first, prevRule, msgRule bool
}

// contexts computes the context of every segment of a.
func contexts(a provenance.Analysis) []context {
	out := make([]context, len(a.Segments))
	rules := make([]bool, len(a.Segments))
	any := 0
	for i, s := range a.Segments {
		if Judged(s.Voice) && ruleLike(s.Text) {
			rules[i] = true
			any++
		}
	}
	first, prev := true, false
	for i, s := range a.Segments {
		if !Judged(s.Voice) {
			continue
		}
		out[i] = context{first: first, prevRule: prev, msgRule: any > 1 || any == 1 && !rules[i]}
		first, prev = false, rules[i]
	}
	return out
}

// features computes the dense features of one segment.
func features(seg provenance.Segment, a provenance.Analysis, ctx context) []float32 {
	first := ctx.first
	text := seg.Text
	low := strings.ToLower(text)
	w := words(text)
	f := make([]float32, len(Dense))
	b := func(i int, v bool) {
		if v {
			f[i] = 1
		}
	}
	has := func(set map[string]bool) bool {
		for _, x := range w {
			if set[x] {
				return true
			}
		}
		return false
	}
	lead := ""
	for _, x := range w {
		if x == "so" || x == "ok" || x == "okay" || x == "also" || x == "and" || x == "btw" || x == "fyi" || x == "oh" || x == "please" || x == "pls" {
			continue
		}
		lead = x
		break
	}
	rt := llm.RuleType(text)
	b(0, rt != "" && rt != "question")
	b(1, fOpensPol[lead])
	b(2, fVerbs[lead])
	b(3, has(fWe))
	b(4, has(fI))
	b(5, has(fYou))
	b(6, has(fGeneric) || reGenericPhr.MatchString(low))
	b(7, has(fTransient) || reTransient.MatchString(low))
	b(8, has(fDeixis))
	b(9, has(fPast) || pastVerb(w))
	b(10, reReaders.MatchString(low))
	b(11, has(fHedge))
	b(12, has(fModal) || strings.Contains(low, "need to") || strings.Contains(low, "has to"))
	f[13] = float32(math.Min(float64(len(w))/40, 1))
	b(14, len(w) <= 4)
	f[15] = codeShare(text)
	b(16, seg.Voice == provenance.Unsure)
	b(17, has(fEmotion) || strings.Contains(text, "!") || hasEmoji(text))
	b(18, has(fChit))
	b(19, has(fNeg) || strings.Contains(low, "n't"))
	b(20, reCopula.MatchString(low))
	b(21, first)
	b(22, seg.Cut)
	b(23, strings.Contains(low, "please") || strings.Contains(low, "pls"))
	b(24, lead == "let's" || lead == "lets")
	b(25, reDigits.MatchString(text))
	f[26] = float32(math.Min(float64(names(text))/3, 1))
	b(27, reRuleChange.MatchString(low))
	b(28, reYouRule.MatchString(low))
	b(29, f[2] == 1 && f[6] == 1)
	b(30, f[2] == 1 && (f[8] == 1 || f[7] == 1 || rePath.MatchString(text)))
	b(31, reStateNow.MatchString(low))
	b(32, rePath.MatchString(text))
	b(33, reFutureOnce.MatchString(low))
	b(34, ctx.prevRule)
	b(35, ctx.msgRule)
	b(36, reDeadline.MatchString(low))
	b(37, len(w) <= 3 && names(text) == 0 && f[15] == 0)
	return f
}

var (
	reStateNow   = lazyre.New(`\b(?:is|are|was|were|keeps?|kept)\s+(?:still\s+)?(?:failing|broken|down|stuck|crashing|timing out|flaky|red|green|hanging|throwing|returning|erroring|slow|running|waiting|blocked|missing|getting)\b|\b(?:broke|failed|crashed|passed|finished|merged|deployed|reverted|pushed)\b`)
	rePath       = lazyre.New(`(?:^|[\s\x60"'(])(?:\.{0,2}/)?[\w.\-]+/[\w./\-]*|\b[\w\-]+\.(?:go|py|ts|tsx|js|jsx|rb|rs|java|kt|swift|c|h|cpp|cs|php|sql|sh|yml|yaml|json|toml|md|css|scss|html|vue|tf|proto)\b`)
	reDeadline   = lazyre.New(`\b(?:until|till|by|before|after)\s+(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday|tomorrow|tonight|noon|midnight|the (?:demo|release|launch|meeting|call|weekend)|next \w+|\d{1,2}(?::\d{2})?\s?(?:am|pm))\b|\b(?:this|next|last) (?:week|month|sprint|friday|monday)\b|\b\d{1,2}(?::\d{2})?\s?(?:am|pm)\b`)
	reFutureOnce = lazyre.New(`\b(?:i'll|i will|i'm going to|i am going to|gonna|i'm about to|let me|we'll fix|i'll fix|i'll do|later today|next sprint|tomorrow)\b`)
)

// pastVerb reports whether a sentence's first verb-like word after a
// subject is in the past tense ("I pushed …", "we merged …").
func pastVerb(w []string) bool {
	for i := 0; i+1 < len(w) && i < 3; i++ {
		if fI[w[i]] || fWe[w[i]] || w[i] == "it" || w[i] == "the" || w[i] == "they" {
			v := w[i+1]
			return len(v) > 4 && strings.HasSuffix(v, "ed") && !strings.HasSuffix(v, "eed")
		}
	}
	return false
}

// codeShare is the share of tokens holding code punctuation.
func codeShare(s string) float32 {
	toks := strings.Fields(s)
	if len(toks) == 0 {
		return 0
	}
	n := 0
	for _, t := range toks {
		t = strings.TrimRight(t, ".,;:!?")
		if strings.ContainsAny(t, codeChars) {
			n++
		}
	}
	return float32(n) / float32(len(toks))
}

// names counts capitalised words after the first (product and tool
// names: "Postgres", "EKS", "ArgoCD").
func names(s string) int {
	n := 0
	for i, t := range strings.Fields(s) {
		if i == 0 {
			continue
		}
		r := []rune(strings.Trim(t, "`\"'(),.;:!?"))
		if len(r) > 1 && unicode.IsUpper(r[0]) {
			n++
		}
	}
	return n
}

func hasEmoji(s string) bool {
	for _, r := range s {
		if r >= emojiRangeLow {
			return true
		}
	}
	return false
}

// Word classes of the shape string (see shape).
var (
	shapeKeep = setOf(`the a an in on for to of with from at by as so and or but when if than then into over under after before until without instead only just also still`)
	shapeBe   = setOf(`is are was were be been being am 's 're`)
	shapeWh   = setOf(`how what why when where which who whom whose`)
)

// shape is a sentence rewritten as the classes of its words ("Never log
// request bodies in the payments service" → "zpol zverb zw zw in the zw
// zw"), so the model's n-grams see the form of a statement apart from its
// vocabulary: a rule about payments and a rule about tabs share it.
func shape(text string) string {
	w := words(text)
	raw := strings.Fields(text)
	var b strings.Builder
	b.WriteString("zshape")
	for i, x := range w {
		c := "zw"
		switch {
		case fOpensPol[x] && x != "every" && x != "all" && x != "nothing" && x != "nobody":
			c = "zpol"
		case fModal[x]:
			c = "zmodal"
		case fWe[x]:
			c = "zwe"
		case fI[x]:
			c = "zi"
		case fYou[x]:
			c = "zyou"
		case fDeixis[x]:
			c = "zdeixis"
		case fGeneric[x]:
			c = "zquant"
		case fTransient[x]:
			c = "znow"
		case fNeg[x] || strings.HasSuffix(x, "n't"):
			c = "zneg"
		case shapeBe[x]:
			c = "zbe"
		case shapeWh[x]:
			c = "zwh"
		case i == 0 && fVerbs[x]:
			c = "zverb"
		case shapeKeep[x]:
			c = x
		case reDigits.MatchString(x):
			c = "znum"
		case len(x) > 4 && strings.HasSuffix(x, "ed"):
			c = "zed"
		case len(x) > 4 && strings.HasSuffix(x, "ing"):
			c = "zing"
		}
		if c == "zw" && i > 0 && i < len(raw) {
			// A name or a piece of code keeps the class of what it is.
			r := strings.Trim(raw[min(i, len(raw)-1)], "\"'(),.;:!?")
			switch {
			case strings.ContainsAny(r, "_./()`=<>{}[]$#@"):
				c = "zcode"
			case len(r) > 1 && unicode.IsUpper([]rune(r)[0]):
				c = "zname"
			}
		}
		b.WriteByte(' ')
		b.WriteString(c)
	}
	return b.String()
}

// ModelText is what the model reads of a clause: its text and its shape.
func ModelText(text string) string { return text + " \n " + shape(text) }
