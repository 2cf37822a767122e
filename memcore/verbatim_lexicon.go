package memcore

import "strings"

// The verbatim rule's vocabulary. The rule (verbatim.go) never names a
// word: it asks these sets what role a word plays. They are English only;
// a message in another language is judged by its punctuation, quotation
// marks, questions and pasted regions alone, so a negation in German
// ("nicht") is not seen and a span it governs is accepted. To cover
// another language, add its words to the roles below:
//
//   - write each word as the rule sees it after normalisation: lower case
//     (Unicode case folding: "ß" is "ss"), NFKC, straight apostrophe, one
//     word per entry ("n'est" stays one word; a phrase is its head word);
//   - a word may have several roles ("said" is a changer, a qualifier and a
//     reporting word);
//   - TestVerbatimLexiconIsNormalised checks every entry is in that form.
//
// A word added as a changer makes the rule refuse more spans; nothing
// added here can make it accept a span it refused.

// lexRole is what a word does to a span next to it.
type lexRole int

const (
	// lexChanger: next to a span in its clause, changes what it means —
	// negation, prohibition, doubt, hypothesis, modality, reported speech,
	// a judgement ("mistake", "lol").
	lexChanger lexRole = iota
	// lexCopula: right after a span, makes the span the subject of a
	// predicate the proposal dropped ("… is forbidden").
	lexCopula
	// lexSubject: opens a clause that stands on its own.
	lexSubject
	// lexPolarity: opens a span that states its own polarity ("never
	// disable TLS verification").
	lexPolarity
	// lexConjunction: joins two clauses.
	lexConjunction
	// lexQualifier: opens a following clause that qualifies the span
	// (", unless …", "; not on Fridays", "- or so he said").
	lexQualifier
	// lexReporting: marks someone else's words ("he said", "the page
	// reads", "according to").
	lexReporting
	// lexJudgement: a following clause about the span that contains one
	// takes it back ("that's a lie", "this is outdated").
	lexJudgement
	// lexDemonstrative: opens a following clause that is about the span
	// ("that's …", "which …", "so they say").
	lexDemonstrative
	// lexAnswer: an answer particle; alone before a span it answers the
	// agent, it does not negate the span ("No, we deploy from main").
	lexAnswer
	// lexHearsay: opens a clause after a line break or a full stop that
	// says the span is someone else's word or not meant ("Allegedly.",
	// "Or so the wiki says.").
	lexHearsay
	// lexTruth: follows a negation that denies the span ("that's not
	// true").
	lexTruth
	// lexReaffirm: opens a frame in which the person repeats their own
	// words ("as I said", "like we discussed"); lexFirstPerson is the
	// person as its subject, lexDiscussed its verbs beside the reporting
	// words.
	lexReaffirm
	lexFirstPerson
	lexDiscussed
	// lexOpenEnd: at the end of a clause, leaves it open for what follows
	// a joiner ("please stop; …", "maybe — …", "we should not: …").
	lexOpenEnd
	// lexAuxiliary: opens a question when it starts a sentence.
	lexAuxiliary
	// lexQuestionWord: opens a question when an auxiliary follows it.
	lexQuestionWord
	lexRoles
)

// verbatimLexicon lists the words of each role.
var verbatimLexicon = [lexRoles]string{
	lexChanger: `not no never nor neither none nobody nothing nowhere noone
		rather instead delete remove forget drop scrap retire obsolete outdated deprecated
		don't dont doesn't doesnt didn't didnt isn't isnt aren't arent wasn't wasnt weren't werent
		won't wont wouldn't wouldnt shouldn't shouldnt can't cant cannot couldn't couldnt mustn't mustnt
		haven't havent hasn't hasnt hadn't hadnt ain't needn't shan't don'ts donts
		without avoid avoids avoiding stop stopped quit refuse refused refuses ignore ignored
		forbid forbids forbidden prohibit prohibits prohibited ban bans banned disallow disallowed
		unsafe insecure dangerous risky wrong false untrue incorrect bad harmful deprecated obsolete outdated
		lie lies myth rumor rumour joke kidding sarcasm sarcastic pretend pretending fake hypothetically
		theoretically ideally
		doubt doubts doubtful deny denies denied dispute disputes hardly barely seldom rarely
		if unless whether suppose supposing assume assuming imagine wonder wondering except instead
		should would could might may maybe perhaps possibly ought shall must
		said says say saying claim claims claimed claiming told tell tells telling wrote writes written
		according reportedly allegedly supposedly apparently heard hears rumored rumoured asks asked ask asking
		think thinks thought believe believes believed guess guessed hope hoped wish wished used
		argues argued suggests suggested insists insisted
		reads states stated mentions mentioned prints printed outputs returned returns shows showed displays displayed
		recommends recommended wants wanted translate translated translates quote quoted quotes instructs instructed
		lol jk lmao haha rofl
		mistake mistaken mistakenly accidentally wrongly bug terrible awful horrible stupid dumb silly
		formerly previously anymore
		myths rumors rumours jokes unlikely reject rejects rejected fiction fictional want grep echo todo`,
	lexCopula: `is are was were be been being am isn't aren't wasn't weren't
		will would should must can could may might shall has have had does do did
		seems seem sounds sound looks look remains remain becomes become
		gets get got needs need requires require`,
	lexSubject: `i we you they he she it our my your their his her its the a an
		this that these those there every each all some most many several any
		everyone everybody someone somebody one i'm we're you're they're he's she's it's
		i've we've they've i'd we'd there's that's`,
	lexPolarity:    `never always don't dont do not no`,
	lexConjunction: `and but or so yet while whereas although though because however since`,
	lexQualifier: `not never unless if except only but or which who
		although though supposedly allegedly apparently reportedly according
		said says claims claimed wrote told right jk lol kidding
		nope false wrong untrue incorrect lie lies myth kidding sarcasm`,
	lexReporting: `said says say saying claims claimed claim claiming wrote writes written told tell tells telling
		according reportedly allegedly supposedly rumored rumoured heard
		think thinks thought believe believes believed assume assumes assumed pretend pretends pretending
		imagine suppose supposing stated mentions mentioned suggests suggested insists insisted
		argues argued reported printed`,
	lexJudgement: `lie lies lying false untrue wrong incorrect myth rumor rumour joke kidding sarcasm sarcastic
		nonsense fake outdated obsolete mistake misleading bogus bs`,
	lexDemonstrative: `that that's this which so it's`,
	lexAnswer:        `no nope nah`,
	lexHearsay:       `or unless except allegedly supposedly reportedly apparently according jk lol nope`,
	lexTruth:         `true correct right accurate so case real`,
	lexOpenEnd: `not never no nor don't dont stop quit avoid refuse forbid forbidden prohibited banned
		should would could might may must shall ought maybe perhaps possibly hypothetically theoretically
		ideally if unless whether suppose supposing assume assuming imagine pretend pretending wonder instead`,
	lexReaffirm:    `as like`,
	lexFirstPerson: `i we`,
	lexDiscussed:   `discussed agreed decided mentioned explained`,
	lexAuxiliary: `is are am was were do does did can could should would will shall
		has have had isn't aren't wasn't weren't don't doesn't didn't can't couldn't shouldn't
		wouldn't won't hasn't haven't`,
	lexQuestionWord: `what why how when where who whom whose which`,
}

// The sets the rule consults, built from verbatimLexicon.
var (
	vChangers, vCopulas, vSubjects, vPolarity, vConjunctions, vQualifiers,
	reporting, vJudgements, vDemonstratives, vAnswers, vHearsay, vTruth, vReaffirmOpeners, vFirstPerson, vDiscussed, vOpenEnd, vAuxiliaries, vQuestionWords map[string]bool
)

func init() { buildVerbatimLexicon() }

func buildVerbatimLexicon() {
	set := func(r lexRole) map[string]bool { return wordSet(verbatimLexicon[r]) }
	vChangers, vCopulas, vSubjects, vPolarity = set(lexChanger), set(lexCopula), set(lexSubject), set(lexPolarity)
	vConjunctions, vQualifiers, reporting = set(lexConjunction), set(lexQualifier), set(lexReporting)
	vJudgements, vDemonstratives, vAnswers = set(lexJudgement), set(lexDemonstrative), set(lexAnswer)
	vHearsay, vTruth = set(lexHearsay), set(lexTruth)
	vReaffirmOpeners, vFirstPerson, vDiscussed = set(lexReaffirm), set(lexFirstPerson), set(lexDiscussed)
	vOpenEnd = set(lexOpenEnd)
	vAuxiliaries, vQuestionWords = set(lexAuxiliary), set(lexQuestionWord)
}

func wordSet(s string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(s) {
		m[w] = true
	}
	return m
}

// isNegatedContraction catches n't forms the lists do not spell out.
func isNegatedContraction(w string) bool {
	return strings.HasSuffix(w, "n't")
}

// vChanges reports whether w changes the meaning of a span next to it.
func vChanges(w string) bool {
	return vChangers[w] || isNegatedContraction(w)
}
