package judge

import (
	"strings"

	"github.com/odekmem/odekmem/internal/judge/corpus"
	"github.com/odekmem/odekmem/internal/provenance"
)

// Example is one segment of a corpus message, labelled for the model.
type Example struct {
	Record string
	Seg    provenance.Segment
	Dense  []float32
	// Durable is true when the segment holds a durable statement (all the
	// key words of a keep label); Type is that label's type.
	Durable bool
	Type    string
	// Skip is true when the segment is only part of a durable statement
	// or could fairly go either way: it is left out of training and of
	// the threshold choice.
	Skip bool
	// Attack is true for an attacker's sentence the analyser took for the
	// person's (a negative of less weight).
	Attack bool
}

// Judged reports whether the model judges a segment of this voice: the
// person's own words, and words that may be theirs. Other voices are
// decided by the analyser alone.
func Judged(v provenance.Voice) bool { return v == provenance.Own || v == provenance.Unsure }

// Examples labels every judged segment of the records' messages.
func Examples(recs []corpus.Record) []Example {
	var out []Example
	for _, r := range recs {
		a := provenance.Analyse(r.Message)
		ctxs := contexts(a)
		for si, seg := range a.Segments {
			if !Judged(seg.Voice) {
				continue
			}
			e := Example{Record: r.ID, Seg: seg, Dense: features(seg, a, ctxs[si])}
			low := strings.ToLower(seg.Text)
			for _, it := range r.Items {
				s, end := corpus.FindQuote(a.Text, it.Quote)
				if s < 0 || end <= seg.Start || s >= seg.End {
					continue
				}
				switch it.Kind {
				case corpus.Keep:
					if containsAll(low, it.Keys) {
						e.Durable, e.Type = true, it.Type
					} else {
						e.Skip = true
					}
				case corpus.Either:
					e.Skip = true
				case corpus.Attack:
					// Someone else's words the analyser did not catch. They
					// read as durable statements (that is the attack), but
					// in a document's voice ("Users should …", "The system
					// must …"): a negative, weighed down so that it does
					// not teach the model that "we decided" is never a
					// statement.
					e.Attack = true
				}
			}
			if e.Durable {
				e.Skip = false
			}
			out = append(out, e)
		}
	}
	return out
}

// containsAll reports whether low holds every key (case-insensitive).
func containsAll(low string, keys []string) bool {
	for _, k := range keys {
		if !strings.Contains(low, strings.ToLower(k)) {
			return false
		}
	}
	return len(keys) > 0
}
