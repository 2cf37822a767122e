package memcore

import (
	"strings"

	"github.com/odekmem/odekmem/internal/provenance"
)

// The judgement of pasted text lives in internal/provenance (SplitPasted):
// one analyser for extraction, the verbatim rule, inline approvals and the
// hook. This file gives the rest of memcore its view of it.

// pasteKind names what a pasted region looks like.
type pasteKind = provenance.Kind

// The paste kinds the store's tests and callers name.
const (
	pasteTerminal = provenance.KindTerminal
	pasteLog      = provenance.KindLog
	pasteTrace    = provenance.KindTrace
	pasteTest     = provenance.KindTest
	pasteHTML     = provenance.KindHTML
	pasteJSON     = provenance.KindJSON
	pasteDiff     = provenance.KindDiff
	pasteTable    = provenance.KindTable
	pasteHTTP     = provenance.KindHTTP
	pasteEmail    = provenance.KindEmail
	pasteWeb      = provenance.KindWeb
	pasteQuote    = provenance.KindQuote
	pasteCode     = provenance.KindCode
	pasteData     = provenance.KindData
)

// pastedRegion is one run of pasted lines.
type pastedRegion struct {
	kind        pasteKind
	first, last int
	text        string
	marked      bool
}

// pastedText is a message split into the person's own text and what they
// pasted.
type pastedText struct {
	// own is the message with every pasted (or unsure) line emptied.
	own      string
	regions  []pastedRegion
	ownLines int
}

// unmarked reports whether the message holds a paste the person did not
// mark with a fence or a quote.
func (p pastedText) unmarked() bool {
	for _, r := range p.regions {
		if !r.marked {
			return true
		}
	}
	return false
}

// splitPasted is provenance.SplitPasted in memcore's terms.
func splitPasted(msg string) pastedText {
	s := provenance.SplitPasted(msg)
	p := pastedText{own: s.Own, ownLines: s.OwnLines}
	for _, r := range s.Regions {
		p.regions = append(p.regions, pastedRegion{kind: r.Kind, first: r.First, last: r.Last, text: r.Text, marked: r.Marked})
	}
	return p
}

// ownText is the person's message without what they pasted: every pasted
// line is an empty line, which ends a sentence.
func ownText(msg string) string { return splitPasted(msg).own }

// normalizeBreaks makes every line break "\n".
func normalizeBreaks(s string) string { return provenance.NormalizeBreaks(s) }

// quotedLine reports whether a trimmed line is quoted, and its text
// without the marker.
func quotedLine(t string) (string, bool) { return provenance.QuotedLine(t) }

// isFenceLine reports whether l opens or closes a code fence.
func isFenceLine(l string) bool {
	t := strings.TrimSpace(l)
	return len(t) >= 3 && (strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~"))
}
