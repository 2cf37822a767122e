package textclf

import (
	"fmt"
	"math"
	"slices"
	"sync"
	"unicode"
	"unicode/utf8"
)

// Config describes how text becomes features. The zero value is the
// default: 2^18 buckets, word unigrams and bigrams, character 3- to 5-grams.
type Config struct {
	// Bits is log2 of the number of hash buckets; 0 means 18. Valid values
	// are 8 to 24.
	Bits int
	// NoWordBigrams leaves out adjacent-word bigrams.
	NoWordBigrams bool
	// NoCharGrams leaves out character n-grams.
	NoCharGrams bool
	// CharMin and CharMax bound the character n-gram lengths in runes;
	// 0 means 3 and 5. Valid values are 1 to 8 with CharMin ≤ CharMax.
	CharMin, CharMax int
}

// DefaultBits is the number of hash bits when Config.Bits is 0.
const DefaultBits = 18

// withDefaults returns c with zero fields filled in.
func (c Config) withDefaults() Config {
	if c.Bits == 0 {
		c.Bits = DefaultBits
	}
	if c.CharMin == 0 {
		c.CharMin = 3
	}
	if c.CharMax == 0 {
		c.CharMax = 5
	}
	return c
}

// validate reports a config that cannot be used (after defaults).
func (c Config) validate() error {
	if c.Bits < 8 || c.Bits > 24 {
		return fmt.Errorf("textclf: Bits %d out of range 8..24", c.Bits)
	}
	if c.CharMin < 1 || c.CharMax > 8 || c.CharMin > c.CharMax {
		return fmt.Errorf("textclf: character n-gram range %d..%d invalid (1 ≤ min ≤ max ≤ 8)", c.CharMin, c.CharMax)
	}
	return nil
}

// Buckets returns the number of hash buckets, 2^Bits (defaults applied).
func (c Config) Buckets() int { return 1 << c.withDefaults().Bits }

// Feature families are mixed into the hash so that the word "ing" and the
// character trigram "ing" are different features.
const (
	famWord   = 'w'
	famBigram = 'b'
	famChar   = 'c'
)

// FNV-1a, 64 bit.
const (
	fnvOffset = 14695981039346656037
	fnvPrime  = 1099511628211
)

// fnvByte folds one byte into h.
func fnvByte(h uint64, b byte) uint64 { return (h ^ uint64(b)) * fnvPrime }

// fnvString folds s into h.
func fnvString(h uint64, s []byte) uint64 {
	for _, b := range s {
		h = (h ^ uint64(b)) * fnvPrime
	}
	return h
}

// Hash64 is the feature hash: 64-bit FNV-1a of the family byte followed by
// the n-gram's UTF-8 bytes. It is exported so that tests and tools can name
// the bucket of an n-gram.
func Hash64(family byte, gram string) uint64 {
	return fnvString(fnvByte(fnvOffset, family), []byte(gram))
}

// token is a word or symbol in the lower-cased text: a byte range and
// whether it is a word (letters, digits…) rather than a lone symbol.
type token struct{ a, b int32 }

// scratch holds the buffers of one featurisation; pooled so that Score
// does not allocate in the steady state.
type scratch struct {
	low    []byte    // lower-cased text, white space collapsed, padded
	offs   []int32   // byte offset of each rune in low (plus the end)
	toks   []token   // words and symbols
	hashes []uint64  // one per n-gram occurrence
	feats  []sparse  // distinct n-grams: bucket index and value
	grams  []gramRef // for Explain: where each distinct hash came from
}

// sparse is one non-zero entry of a hashed feature vector.
type sparse struct {
	idx int32
	val float32
}

// gramRef remembers an n-gram's text for Explain.
type gramRef struct {
	h    uint64
	fam  byte
	a, b int32 // byte range in scratch.low
	a2   int32 // for bigrams: start of the second word (b is its end)
	b1   int32 // for bigrams: end of the first word
}

var scratchPool = sync.Pool{New: func() any { return new(scratch) }}

// isWordRune reports whether r belongs in a word token.
func isWordRune(r rune) bool {
	return r == '_' || r == '\'' || unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsMark(r)
}

// prepare lower-cases text into s.low (white space runs collapsed to one
// space, one space at each end), records rune offsets and tokens.
func (s *scratch) prepare(text string) {
	low := append(s.low[:0], ' ')
	offs := append(s.offs[:0], 0)
	toks := s.toks[:0]
	space := true
	wordStart := int32(-1)
	endWord := func(at int32) {
		if wordStart >= 0 {
			toks = append(toks, token{wordStart, at})
			wordStart = -1
		}
	}
	for _, r := range text {
		switch {
		case r == '\u2019' || r == '\u2018':
			r = '\''
		case r < utf8.RuneSelf:
			if 'A' <= r && r <= 'Z' {
				r += 'a' - 'A'
			}
		default:
			r = unicode.ToLower(r)
		}
		if unicode.IsSpace(r) || r == utf8.RuneError || unicode.IsControl(r) {
			if !space {
				endWord(int32(len(low)))
				offs = append(offs, int32(len(low)))
				low = append(low, ' ')
				space = true
			}
			continue
		}
		space = false
		at := int32(len(low))
		offs = append(offs, at)
		low = utf8.AppendRune(low, r)
		if isWordRune(r) {
			if wordStart < 0 {
				wordStart = at
			}
			continue
		}
		endWord(at)
		toks = append(toks, token{at, int32(len(low))})
	}
	endWord(int32(len(low)))
	if !space {
		offs = append(offs, int32(len(low)))
		low = append(low, ' ')
	}
	offs = append(offs, int32(len(low))) // end sentinel
	s.low, s.offs, s.toks = low, offs, toks
}

// hashAll fills s.hashes with one hash per n-gram occurrence. When refs is
// true it also records where each came from (for Explain).
func (s *scratch) hashAll(c Config, refs bool) {
	hs := s.hashes[:0]
	gs := s.grams[:0]
	low := s.low
	for i, t := range s.toks {
		h := fnvString(fnvByte(fnvOffset, famWord), low[t.a:t.b])
		hs = append(hs, h)
		if refs {
			gs = append(gs, gramRef{h: h, fam: famWord, a: t.a, b: t.b})
		}
		if !c.NoWordBigrams && i > 0 {
			p := s.toks[i-1]
			h := fnvByte(fnvString(fnvByte(fnvOffset, famBigram), low[p.a:p.b]), ' ')
			h = fnvString(h, low[t.a:t.b])
			hs = append(hs, h)
			if refs {
				gs = append(gs, gramRef{h: h, fam: famBigram, a: p.a, b1: p.b, a2: t.a, b: t.b})
			}
		}
	}
	if !c.NoCharGrams {
		offs := s.offs
		nr := len(offs) - 1 // runes in low
		for i := 0; i < nr; i++ {
			h := fnvByte(fnvOffset, famChar)
			// One running hash per start: emit it at every length from
			// CharMin to CharMax.
			for n := 1; n <= c.CharMax && i+n <= nr; n++ {
				h = fnvString(h, low[offs[i+n-1]:offs[i+n]])
				if n >= c.CharMin {
					hs = append(hs, h)
					if refs {
						gs = append(gs, gramRef{h: h, fam: famChar, a: offs[i], b: offs[i+n]})
					}
				}
			}
		}
	}
	s.hashes, s.grams = hs, gs
}

// vectorize turns s.hashes into s.feats: one entry per distinct n-gram,
// value sign·(1+ln tf), L2-normalised. mask is the bucket mask.
func (s *scratch) vectorize(mask uint64) {
	hs := s.hashes
	slices.Sort(hs)
	fs := s.feats[:0]
	var norm float64
	for i := 0; i < len(hs); {
		j := i + 1
		for j < len(hs) && hs[j] == hs[i] {
			j++
		}
		v := 1 + math.Log(float64(j-i))
		norm += v * v
		if hs[i]>>63 != 0 {
			v = -v
		}
		fs = append(fs, sparse{idx: int32(hs[i] & mask), val: float32(v)})
		i = j
	}
	if norm > 0 {
		inv := float32(1 / math.Sqrt(norm))
		for k := range fs {
			fs[k].val *= inv
		}
	}
	s.feats = fs
}

// featurize runs the whole pipeline for text under c (defaults applied).
func (s *scratch) featurize(c Config, text string) {
	s.prepare(text)
	s.hashAll(c, false)
	s.vectorize(uint64(1)<<c.Bits - 1)
}

// Vector is a hashed feature vector: parallel bucket indices and values.
// It is what [Config.Vectorize] returns for inspection and tests.
type Vector struct {
	Index []int32
	Value []float32
}

// Vectorize returns the hashed, L2-normalised feature vector of text under
// c, one entry per distinct n-gram in hash order (two n-grams that share a
// bucket appear as two entries).
func (c Config) Vectorize(text string) Vector {
	c = c.withDefaults()
	s := scratchPool.Get().(*scratch)
	defer scratchPool.Put(s)
	s.featurize(c, text)
	v := Vector{Index: make([]int32, len(s.feats)), Value: make([]float32, len(s.feats))}
	for i, f := range s.feats {
		v.Index[i], v.Value[i] = f.idx, f.val
	}
	return v
}
