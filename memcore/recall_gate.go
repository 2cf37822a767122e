package memcore

import (
	"strings"
	"sync"

	"github.com/odekmem/odekmem/internal/embed"
)

// The lexical evidence of a recall. The offline hash embedder is lexical
// at heart: a short message whose one shared word with an atom is a common
// one ("how was your day" and "we deploy to production every day") scores
// as high as a real match. A candidate whose only evidence is one common
// word is not recalled; one distinctive shared word ("deploy", "pgxpool"),
// or two shared words of any kind, is evidence. Scored.Matched lists the
// shared words, so a person can see why an atom came back.

// queryTerm is one distinct index term of a query and the word of the
// query it came from (the first one).
type queryTerm struct{ term, word string }

// queryTerms are a query's index terms, distinct, in order.
func queryTerms(query string) []queryTerm {
	var out []queryTerm
	seen := map[string]bool{}
	for _, w := range embed.Tokens(query) {
		if embed.IsStopword(w) {
			continue
		}
		t := embed.Stem(w)
		if !seen[t] {
			seen[t] = true
			out = append(out, queryTerm{term: t, word: w})
		}
	}
	return out
}

// matchedTerms returns the words of the query whose terms text holds, in
// the query's order.
func matchedTerms(q []queryTerm, text string) []string {
	if len(q) == 0 {
		return nil
	}
	return matchedIn(q, embed.Terms(text))
}

// matchedIn is matchedTerms over a text's index terms (embed.Terms).
func matchedIn(q []queryTerm, terms []string) []string {
	found := make([]bool, len(q))
	n := 0
	for _, t := range terms {
		for i := range q {
			if !found[i] && q[i].term == t {
				found[i] = true
				n++
			}
		}
	}
	if n == 0 {
		return nil
	}
	out := make([]string, 0, n)
	for i, t := range q {
		if found[i] {
			out = append(out, t.word)
		}
	}
	return out
}

// weakEvidence reports whether matched is one common word and nothing
// else.
func weakEvidence(matched []string) bool {
	return len(matched) == 1 && commonWords()[embed.Stem(matched[0])]
}

// commonWords are everyday English words (as index terms: lower-cased
// and stemmed) too frequent in any talk to be evidence on their own.
var commonWords = sync.OnceValue(func() map[string]bool {
	const words = `day days time times way ways thing things people person year years week weeks month months today tomorrow yesterday
morning afternoon evening night tonight moment minute minutes hour hours second seconds lot lots bit kind sort part place point case fact
hand eye life world home house job work works worked working stuff idea ideas question questions problem problems issue issues answer
answers reason example number numbers name names end start side line lines word words group area room friend friends family team
good great nice fine bad better best worse worst new old big small little large long short high low early late young next last first
second third same different other own right wrong sure real true false important possible able free full easy hard quick fast slow
whole certain clear open close closed ready happy sorry glad cool awesome okay ok yes yeah no nope maybe please thanks thank hello hi
hey make makes made making know knows knew think thinks thought take takes took taking see sees saw seen come comes came coming want
wants wanted look looks looked looking use uses used using give gives gave find finds found tell tells told ask asks asked feel feels
felt try tries tried leave leaves left call calls called keep keeps kept let lets begin began seem seems seemed help helps helped
show shows showed hear heard play plays played move moves moved live lives lived believe believes bring brings brought happen happens
happened write writes wrote sit stand lose lost pay paid meet met include includes continue set sets learn change changes changed
lead understand watch follow stop stops stopped create speak read reads allow add adds added spend grow open walk win offer remember
love consider appear buy wait serve die send expect build stay fall cut reach kill remain suggest raise pass sell require report decide
pull get gets got go goes went gone going do does did done doing say says said saying put puts need needs needed like likes liked
really very just also still even again ever never always often sometimes usually maybe almost quite rather pretty much many more most
less least enough though although however because since until while whether thing anything something nothing everything anyone someone
everyone nobody back away around over under again now then here there today tonight plan plans stuff things lol haha`
	m := map[string]bool{}
	for _, w := range strings.Fields(words) {
		m[embed.Stem(w)] = true
	}
	return m
})
