package vindex

import (
	"math/rand"
	"testing"
)

// CheckPostings accepts what DecodePostings decodes without damage and
// refuses the rest, with the same count: on encoded lists (gaps and
// frequencies of one byte and of several) and on those lists cut short,
// corrupted or extended by random bytes.
func TestCheckPostingsAgreesWithDecodePostings(t *testing.T) {
	r := rand.New(rand.NewSource(5))
	const docs = 50000
	for range 5000 {
		var ps []LexPosting
		doc := int32(-1)
		for range r.Intn(20) {
			gap := int32(r.Intn(100))
			if r.Intn(4) == 0 {
				gap = int32(r.Intn(3000))
			}
			tf := int32(1 + r.Intn(3))
			if r.Intn(8) == 0 {
				tf = int32(1 + r.Intn(500))
			}
			doc += gap + 1
			ps = append(ps, LexPosting{doc, tf})
		}
		b := AppendPostings(nil, ps)
		switch r.Intn(5) {
		case 1:
			b = b[:r.Intn(len(b)+1)]
		case 2:
			if len(b) > 0 {
				b[r.Intn(len(b))] = byte(r.Intn(256))
			}
		case 3:
			b = append(b, byte(r.Intn(256)))
		case 4:
			if len(b) > 1 {
				b[1+r.Intn(len(b)-1)] = 0 // a zero frequency, or a zero gap
			}
		}
		for _, d := range []int{docs, int(doc) + 1, max(int(doc), 0)} {
			n, err := CheckPostings(b, d)
			ref, rerr := DecodePostings(b, d)
			if (err == nil) != (rerr == nil) || (err == nil && n != len(ref)) {
				t.Fatalf("%x (docs %d): CheckPostings %d, %v; DecodePostings %d, %v", b, d, n, err, len(ref), rerr)
			}
		}
	}
}
