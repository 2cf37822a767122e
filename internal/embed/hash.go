package embed

import (
	"context"
	"fmt"
	"math"
	"slices"
	"unicode/utf8"
)

// HashVersion is bumped whenever Hash's output for some text changes; it is
// part of the fingerprint so stale vector caches are rebuilt.
const HashVersion = 1

// DefaultHashDims is the default (and minimum) width of Hash vectors.
const DefaultHashDims = 768

// HashOptions tunes the feature-hashing embedder. The zero value of each
// field means "default"; NewHash uses the defaults, which are the measured
// best on the LoCoMo dev split.
type HashOptions struct {
	Dims       int     // vector width, >= DefaultHashDims
	WordWeight float32 // weight of the (L2-normalised) word-unigram block
	GramWeight float32 // weight of the (L2-normalised) character n-gram block
	PairWeight float32 // weight of the adjacent-term bigram block (default 0; negative = off)
	MinGram    int     // shortest character n-gram (default 3)
	MaxGram    int     // longest character n-gram (default 5)
}

var defaultHashOptions = HashOptions{
	Dims:       DefaultHashDims,
	WordWeight: 1,
	GramWeight: 3,
	MinGram:    3,
	MaxGram:    5,
}

// Hash is the offline feature-hashing embedder: word unigrams (index terms,
// see Terms) plus character n-grams of each word with boundary markers
// ("<cat>" → "<ca", "cat", "at>", …), sublinear term frequency 1+ln(tf),
// signed hashing with FNV-1a 64 (the sign comes from the top bit, so
// colliding features cancel in expectation instead of piling up), each
// block L2-normalised and weighted, the sum L2-normalised.
//
// The output is a pure function of the text and the options: identical on
// every machine and process, and independent of any other document. Hash
// is safe for concurrent use.
type Hash struct {
	o  HashOptions
	fp string
}

// NewHash returns the default hash embedder with the given width (0 means
// DefaultHashDims; smaller widths are raised to it).
func NewHash(dims int) *Hash {
	o := defaultHashOptions
	o.Dims = dims
	return NewHashOptions(o)
}

// NewHashOptions returns a hash embedder with non-default tuning. Its
// fingerprint differs from the default's whenever any option does.
func NewHashOptions(o HashOptions) *Hash {
	d := defaultHashOptions
	if o.Dims < DefaultHashDims {
		o.Dims = DefaultHashDims
	}
	if o.WordWeight == 0 {
		o.WordWeight = d.WordWeight
	}
	if o.GramWeight == 0 {
		o.GramWeight = d.GramWeight
	}
	if o.MinGram <= 0 {
		o.MinGram = d.MinGram
	}
	if o.MaxGram < o.MinGram {
		o.MaxGram = max(d.MaxGram, o.MinGram)
	}
	h := &Hash{o: o}
	d.Dims = o.Dims
	if o == d {
		h.fp = fmt.Sprintf("hash/%d/%d", HashVersion, o.Dims)
	} else {
		h.fp = fmt.Sprintf("hash/%d+w%g,g%g,p%g,n%d-%d/%d", HashVersion, o.WordWeight, o.GramWeight, o.PairWeight, o.MinGram, o.MaxGram, o.Dims)
	}
	return h
}

// Fingerprint implements Embedder: "hash/<version>/<dims>".
func (h *Hash) Fingerprint() string { return h.fp }

// Dims implements Embedder.
func (h *Hash) Dims() int { return h.o.Dims }

// Sparse implements Embedder: hashed vectors benefit from query-side IDF.
func (h *Hash) Sparse() bool { return true }

// native makes Hash a Native embedder.
func (h *Hash) native() {}

// Embed implements Embedder. It never fails except on a cancelled context.
func (h *Hash) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	var s hashScratch
	for i, t := range texts {
		if i%256 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		out[i] = h.embedOne(t, &s)
	}
	return out, nil
}

// EmbedText embeds a single text (convenience for callers without a
// context; never fails).
func (h *Hash) EmbedText(text string) []float32 {
	var s hashScratch
	return h.embedOne(text, &s)
}

type hashScratch struct {
	words, grams, pairs []uint64
	block               []float32
	runes               []rune
	buf                 []byte
}

const (
	tagWord byte = 'w'
	tagGram byte = 'g'
	tagPair byte = 'p'
)

func (h *Hash) embedOne(text string, s *hashScratch) []float32 {
	dims := h.o.Dims
	vec := make([]float32, dims)
	if cap(s.block) < dims {
		s.block = make([]float32, dims)
	}
	s.block = s.block[:dims]
	s.words = s.words[:0]
	s.grams = s.grams[:0]
	s.pairs = s.pairs[:0]
	prev := ""
	for _, tok := range Tokens(text) {
		if IsStopword(tok) {
			continue
		}
		stem := Stem(tok)
		s.words = append(s.words, fnv64(tagWord, stem))
		if h.o.PairWeight > 0 && prev != "" {
			s.pairs = append(s.pairs, fnv64(tagPair, prev+" "+stem))
		}
		prev = stem
		// Character n-grams of the raw token with boundary markers.
		s.runes = append(s.runes[:0], '<')
		for _, r := range tok {
			s.runes = append(s.runes, r)
		}
		s.runes = append(s.runes, '>')
		for n := h.o.MinGram; n <= h.o.MaxGram; n++ {
			for i := 0; i+n <= len(s.runes); i++ {
				s.buf = s.buf[:0]
				for _, r := range s.runes[i : i+n] {
					s.buf = utf8.AppendRune(s.buf, r)
				}
				s.grams = append(s.grams, fnv64b(tagGram, s.buf))
			}
		}
	}
	addBlock(vec, s.block, s.words, h.o.WordWeight)
	addBlock(vec, s.block, s.grams, h.o.GramWeight)
	if h.o.PairWeight > 0 {
		addBlock(vec, s.block, s.pairs, h.o.PairWeight)
	}
	Normalize(vec)
	return vec
}

// addBlock hashes the feature multiset feats into block with sublinear TF
// and signed buckets, L2-normalises it, and adds weight*block to vec.
func addBlock(vec, block []float32, feats []uint64, weight float32) {
	if len(feats) == 0 {
		return
	}
	clear(block)
	slices.Sort(feats)
	dims := uint64(len(block))
	for i := 0; i < len(feats); {
		j := i + 1
		for j < len(feats) && feats[j] == feats[i] {
			j++
		}
		f := feats[i]
		w := float32(1 + math.Log(float64(j-i)))
		if f>>63 != 0 {
			w = -w
		}
		block[(f&(1<<62-1))%dims] += w
		i = j
	}
	var ss float64
	for _, x := range block {
		ss += float64(x) * float64(x)
	}
	if ss == 0 {
		return
	}
	scale := weight / float32(math.Sqrt(ss))
	for i, x := range block {
		vec[i] += x * scale
	}
}

const (
	fnvOffset64 = 14695981039346656037
	fnvPrime64  = 1099511628211
)

// fnv64 is FNV-1a 64 over tag followed by s.
func fnv64(tag byte, s string) uint64 {
	h := uint64(fnvOffset64)
	h ^= uint64(tag)
	h *= fnvPrime64
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= fnvPrime64
	}
	return mix(h)
}

func fnv64b(tag byte, b []byte) uint64 {
	h := uint64(fnvOffset64)
	h ^= uint64(tag)
	h *= fnvPrime64
	for _, c := range b {
		h ^= uint64(c)
		h *= fnvPrime64
	}
	return mix(h)
}

// mix is a fixed 64-bit finaliser (splitmix64's) applied to FNV-1a so the
// high bit (the sign) and the low bits (the bucket) are well distributed
// even for short inputs.
func mix(z uint64) uint64 {
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// Calibrate implements Embedder: the vector channel's evidence cos/τ
// (τ = HashCalibrationTau) on the common similarity scale,
// 1/(1 + (cos/(τ·SimScale))^-SimShape), 0 for non-positive cosines.
//
// Feature-hashing cosines are small and compressed: on LoCoMo (query-side
// IDF applied) a question and its evidence turn have a median raw cosine of
// 0.195, a question and a random turn of the same conversation 0.012 (99th
// percentile 0.164). τ maps the 99th percentile of random pairs (cosine ≈
// 0.17) onto the 0.55 gate, so the gate keeps its meaning for a pure
// vector query, and cos/τ is the evidence that vindex.Hybrid adds to the
// lexical channel's: the calibration and the fusion together rank by the
// measured best linear mix of the two channels.
func (h *Hash) Calibrate(cos float32) float32 { return hashCalibrate(cos) }

// HashCalibrationTau is the evidence scale of Hash.Calibrate: a raw cosine
// of τ·ln(1/0.45) ≈ 0.171 maps to DefaultMinScore.
const HashCalibrationTau = 0.2146

// The common similarity scale, SimilarityOf(x) = 1/(1 + (x/SimScale)^-SimShape),
// defined here once: embedders calibrate onto it and vindex (which imports
// this package) fuses the lexical channel on it (vindex.Similarity says how
// the constants were chosen).
const (
	SimShape = 1.2
	SimScale = 0.675544
)

// SimilarityOf maps additive evidence x onto the common similarity scale
// (0 for x ≤ 0, 1 for +Inf).
func SimilarityOf(x float64) float64 {
	if !(x > 0) {
		return 0
	}
	if math.IsInf(x, 1) {
		return 1
	}
	return 1 / (1 + math.Pow(x/SimScale, -SimShape))
}

func hashCalibrate(cos float32) float32 {
	return float32(SimilarityOf(float64(cos) / HashCalibrationTau))
}

// Normalize scales v to unit L2 norm in place (a zero vector is left as
// is) and returns it.
func Normalize(v []float32) []float32 {
	var ss float64
	for _, x := range v {
		ss += float64(x) * float64(x)
	}
	if ss == 0 {
		return v
	}
	inv := float32(1 / math.Sqrt(ss))
	for i := range v {
		v[i] *= inv
	}
	return v
}
