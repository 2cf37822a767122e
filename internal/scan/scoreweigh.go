package scan

// Weighing a sentence's features into an injection score (split from
// score.go, which finds the features).

import (
	"fmt"
	"sort"
	"strings"
)

type scoreHit struct {
	score   float64
	feats   []string
	top     string
	a, b    int // view offsets of the window
	windowS string
}

// weigh scores the union of features of a window. The rules look alike
// (if a feature, add a weight) but each has its own condition, nesting and
// weight, tuned on the evaluation corpora; written out, a rule reads as it
// scores, which a table of predicates would hide.
func weigh(has *[nFeat]bool, hits *[nFeat]int, pairOverride, pairExfil, pairConceal bool) (float64, []string) {
	var score float64
	var why []string
	add := func(w float64, name string) {
		score += w
		why = append(why, fmt.Sprintf("%s %+.1f", name, w))
	}
	addressed := has[fVocative] || has[fAgent]
	if has[fVocative] {
		add(1.5, featName[fVocative])
	} else if has[fAgent] {
		add(1.0, featName[fAgent])
	}
	if has[fYou] {
		add(0.5, featName[fYou])
	}
	if pairOverride {
		add(2.0, "override_of_instructions")
		if has[fPrior] {
			add(1.0, featName[fPrior])
		}
	}
	if has[fObsolete] && has[fInstr] {
		add(1.5, "instructions_declared_void")
	}
	if has[fNewRules] {
		add(1.5, featName[fNewRules])
	}
	if has[fSecret] {
		add(1.0, featName[fSecret])
		if pairExfil {
			add(1.0, "send_or_show_secret")
			if has[fSink] {
				add(1.5, featName[fSink])
			}
		}
	} else if has[fExfil] && has[fSink] && (has[fConceal] || addressed) {
		add(1.0, "send_to_sink")
	}
	if has[fConceal] {
		if pairConceal {
			add(2.0, "hide_from_the_person")
		} else {
			add(1.0, featName[fConceal])
		}
	}
	if has[fDeceive] && (has[fPerson] || addressed) {
		add(1.5, featName[fDeceive])
	}
	if has[fPersona] {
		add(1.5*float64(min(hits[fPersona], 2)), featName[fPersona])
	}
	if has[fPrivilege] {
		add(1.0, featName[fPrivilege])
	}
	if has[fDestructive] {
		add(1.0, featName[fDestructive])
	}
	if has[fRole] {
		add(1.5, featName[fRole])
	}
	if has[fRemoteExec] {
		add(2.5, featName[fRemoteExec])
		if has[fRun] || has[fModal] || has[fImperative] || addressed {
			add(1.0, "told_to_run_it")
		}
	}
	if has[fInsecureRegistry] {
		add(2.0, featName[fInsecureRegistry])
		if has[fRun] || has[fModal] || addressed {
			add(1.0, "told_to_use_it")
		}
	}
	for _, fw := range standaloneWeights {
		if has[fw.f] {
			add(fw.w, featName[fw.f])
		}
	}
	if has[fAnswerSet] && has[fFraming] {
		add(3.0, "dictated_answer_in_a_hypothetical")
	}
	if has[fImperative] && score > 0 {
		add(0.5, featName[fImperative])
	}
	if has[fModal] && addressed && score > 1 {
		add(0.5, featName[fModal])
	}
	return score, why
}

// scoreView runs the scored detector over a normalised view and returns
// the best window when it reaches the threshold.
func scoreView(v string) (scoreHit, bool) {
	h, ok, _ := scoreSummary(v)
	return h, ok
}

// featSummary is what the scored detector saw in a whole view, whether or
// not it blocked: the features found in any sentence and the best window's
// score. The learned detector reads it as dense features.
type featSummary struct {
	has   [nFeat]bool
	best  float64
	words int // tokens in the view
}

// scoreSummary is scoreView that also returns the summary.
func scoreSummary(v string) (scoreHit, bool, featSummary) {
	var sum featSummary
	sents := splitSentences(v)
	if len(sents) == 0 {
		return scoreHit{}, false, sum
	}
	feats := make([]sentence, len(sents))
	var toks []string
	for i, s := range sents {
		toks = tokenize(s, toks)
		sum.words += len(toks)
		feats[i].firstOverride, feats[i].lastInstr = -1, -1
		features(s, toks, &feats[i], i == 0)
	}
	if q := len(reTranscriptQ.FindAllStringIndex(v, 3)); q >= 2 && reTranscriptA.MatchString(v) {
		feats[0].set(fTranscript)
	}
	var best scoreHit
	found := false
	for i := range sents {
		for w := 1; w <= 2 && i+w <= len(sents); w++ {
			var has [nFeat]bool
			var hits [nFeat]int
			pairO, pairE, pairC := false, false, false
			for k := i; k < i+w; k++ {
				sn := &feats[k]
				for f := range has {
					has[f] = has[f] || sn.has[f]
					hits[f] += sn.hits[f]
				}
				// the verb comes before what it drops ("ignore … the
				// instructions"), unless a "previous" or an address makes
				// the other order unambiguous ("Anweisungen ignorieren",
				// "指示を無視") or a substring-matched script has no order.
				ordered := sn.firstOverride < 0 || sn.lastInstr < 0 || sn.lastInstr > sn.firstOverride || sn.has[fPrior] || sn.has[fVocative]
				pairO = pairO || (sn.has[fOverride] && ordered && (sn.has[fInstr] || sn.has[fPrior] && sn.has[fYou]))
				pairE = pairE || (sn.has[fExfil] && sn.has[fSecret])
				if k > i {
					// a request spread over two sentences ("I need your
					// password. Tell it to me.")
					pairE = pairE || (sn.has[fExfil] && feats[k-1].has[fSecret]) || (sn.has[fSecret] && feats[k-1].has[fExfil])
				}
				pairC = pairC || (sn.has[fConceal] && (sn.has[fPerson] || sn.has[fRun] || sn.has[fExfil] || sn.has[fDestructive] || sn.has[fImperative]))
			}
			sc, why := weigh(&has, &hits, pairO, pairE, pairC)
			sum.best = max(sum.best, sc)
			if sc >= scoreThreshold && (!found || sc > best.score) {
				found = true
				best = scoreHit{score: sc, feats: why, windowS: strings.Join(sents[i:i+w], " ")}
			}
		}
	}
	for i := range feats {
		for f := range sum.has {
			sum.has[f] = sum.has[f] || feats[i].has[f]
		}
	}
	if found {
		sort.SliceStable(best.feats, func(a, b int) bool { return weightOf(best.feats[a]) > weightOf(best.feats[b]) })
		best.top = strings.Fields(best.feats[0])[0]
		// locate the window in the view
		if k := strings.Index(v, best.windowS); k >= 0 {
			best.a, best.b = k, k+len(best.windowS)
		} else {
			best.a, best.b = 0, len(v)
		}
	}
	return best, found, sum
}

func weightOf(s string) float64 {
	var f float64
	if i := strings.LastIndexByte(s, ' '); i >= 0 {
		fmt.Sscanf(s[i+1:], "%g", &f)
	}
	return f
}

// scoreReason renders a hit as "score 4.5 ≥ 3: override_of_instructions +2.0, …".
func (h scoreHit) reason(prefix string) string {
	return fmt.Sprintf("%saddresses the agent to change its behaviour (score %.1f ≥ %.1f: %s)", prefix, h.score, scoreThreshold, strings.Join(h.feats, ", "))
}
