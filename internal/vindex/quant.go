package vindex

import (
	"math"
	"math/bits"
	"math/rand/v2"
	"slices"
	"sync"
)

// The quantised first pass of a large Exact index: every row also has a
// binary code, the signs of the row after a fixed random rotation (a
// randomised Hadamard transform: three rounds of random sign flips and a
// fast Walsh–Hadamard transform over the row zero-padded to a power of
// two), and a search ranks all rows by the Hamming distance between their
// code and the rotated query's, keeps the nearest candidates and rescores
// them exactly from the int8 rows. The rotation spreads every feature of a
// hashed vector over all coordinates, so the sign bits estimate the angle
// (SimHash) well; without it the signs of raw hash-embedding coordinates
// do not (measured: recall@10 0.45 against 0.96 at 18k with 800
// candidates). Results are exact cosines, so a candidate the first pass
// keeps ranks as exact search would rank it; what the first pass can miss
// is measured as recall@10 against exact search (BenchmarkQuantSearch).
//
// The codes are a pure function of the row and the rotation's fixed seed,
// so a snapshot stores them (CodeVersion names that function).

// CodeVersion identifies the code function; a snapshot with another
// version has its codes recomputed.
const CodeVersion = 1

// DefaultQuantMin is the number of rows from which Exact searches through
// the quantised first pass: below it a full int8 scan costs at most a few
// milliseconds and is exact. The default store cap (100 MB) holds about
// 19k atoms, so a default store never leaves exact search.
const DefaultQuantMin = 32768

// quantCandidates is how many rows the first pass keeps for k hits among
// n rows: 32k, and 10·√n (measured on hash-embedded synthetic notes with
// 1024-bit codes, the first pass needs a smaller share of a larger index
// for the same recall: recall@10 0.957 at 18k keeping 800 rows, 0.951 at
// 100k keeping 1,600, 0.978 keeping 3,200).
func quantCandidates(k, n int) int {
	return min(n, max(32*k, int(10*math.Sqrt(float64(n))), 256))
}

// rotation is the randomised Hadamard transform of one width.
type rotation struct {
	dims, size int // input width, padded power of two
	signs      []float32
}

var rotations sync.Map // dims → *rotation

func rotationFor(dims int) *rotation {
	if r, ok := rotations.Load(dims); ok {
		return r.(*rotation)
	}
	size := 1
	for size < dims {
		size *= 2
	}
	size = max(size, 64)
	src := rand.New(rand.NewPCG(0x6f64656b6d656d, uint64(size))) // fixed: codes are persisted
	signs := make([]float32, 3*size)
	for i := range signs {
		signs[i] = float32(src.IntN(2)*2 - 1)
	}
	r, _ := rotations.LoadOrStore(dims, &rotation{dims: dims, size: size, signs: signs})
	return r.(*rotation)
}

// words is the length of one code in uint64s.
func (r *rotation) words() int { return r.size / 64 }

// CodeWords is the length in uint64s of the binary code of a dims-wide
// vector.
func CodeWords(dims int) int { return rotationFor(dims).words() }

// code writes the code of x (len r.dims; any scale) into dst (r.words()
// uint64s), using buf (len r.size) as scratch.
func codeOf[T int8 | float32](r *rotation, x []T, dst []uint64, buf []float32) {
	for i := range buf {
		buf[i] = 0
	}
	for i, v := range x {
		buf[i] = float32(v)
	}
	for round := 0; round < 3; round++ {
		s := r.signs[round*r.size : (round+1)*r.size]
		for i := range buf {
			buf[i] *= s[i]
		}
		fwht(buf)
	}
	for w := range dst {
		var c uint64
		for b, v := range buf[w*64 : w*64+64] {
			if v >= 0 {
				c |= 1 << b
			}
		}
		dst[w] = c
	}
}

// fwht is the unnormalised fast Walsh–Hadamard transform of a (len a power
// of two); only signs are kept, so no scaling.
func fwht(a []float32) {
	n := len(a)
	for h := 1; h < n; h *= 2 {
		for i := 0; i < n; i += 2 * h {
			x, y := a[i:i+h], a[i+h:i+2*h]
			for j := range x {
				x[j], y[j] = x[j]+y[j], x[j]-y[j]
			}
		}
	}
}

// hamming fills dist[r] with the Hamming distance between row r's code and
// q, for the rows of codes (words uint64s each), and counts the rows at
// each distance in hist (len ≥ 64·len(q)+1).
func hamming(codes []uint64, q []uint64, dist []uint16, hist []int32) {
	w := len(q)
	if w == 16 {
		q := q[:16:16]
		for r := range dist {
			c := codes[r*16 : r*16+16 : r*16+16]
			d := bits.OnesCount64(c[0]^q[0]) + bits.OnesCount64(c[1]^q[1]) + bits.OnesCount64(c[2]^q[2]) + bits.OnesCount64(c[3]^q[3]) +
				bits.OnesCount64(c[4]^q[4]) + bits.OnesCount64(c[5]^q[5]) + bits.OnesCount64(c[6]^q[6]) + bits.OnesCount64(c[7]^q[7]) +
				bits.OnesCount64(c[8]^q[8]) + bits.OnesCount64(c[9]^q[9]) + bits.OnesCount64(c[10]^q[10]) + bits.OnesCount64(c[11]^q[11]) +
				bits.OnesCount64(c[12]^q[12]) + bits.OnesCount64(c[13]^q[13]) + bits.OnesCount64(c[14]^q[14]) + bits.OnesCount64(c[15]^q[15])
			dist[r] = uint16(d)
			hist[d]++
		}
		return
	}
	for r := range dist {
		c := codes[r*w : (r+1)*w]
		d := 0
		for j, x := range q {
			d += bits.OnesCount64(c[j] ^ x)
		}
		dist[r] = uint16(d)
		hist[d]++
	}
}

// quantPass is the first pass of one query: every row's distance and how
// many rows lie at each distance.
type quantPass struct {
	dist []uint16
	hist []int32
}

// nearest returns the rows at the smallest distances, best first (row
// order within one distance): at least want of them that allow accepts
// when there are so many (allow is asked only of rows within the distance
// that is reached).
func (p *quantPass) nearest(ids []string, want int, allow func(string) bool) []int32 {
	var out []int32
	accepted, lo := 0, 0
	for lo < len(p.hist) && accepted < want {
		// Widen to the distance that holds enough rows for what is still
		// wanted, then collect that band in one scan.
		hi, count := lo, int32(0)
		for hi < len(p.hist) && int(count) < want-accepted {
			count += p.hist[hi]
			hi++
		}
		start := len(out)
		for r, d := range p.dist {
			if int(d) >= lo && int(d) < hi {
				out = append(out, int32(r))
			}
		}
		band := out[start:]
		slices.SortStableFunc(band, func(a, b int32) int { return int(p.dist[a]) - int(p.dist[b]) })
		if allow != nil {
			kept := band[:0]
			for _, r := range band {
				if allow(ids[r]) {
					kept = append(kept, r)
				}
			}
			out = out[:start+len(kept)]
		}
		accepted = len(out)
		lo = hi
	}
	return out
}

// ensureCodesLocked computes the codes of every row when the index has
// none yet (or of another width); the caller holds e.mu for writing.
func (e *Exact) ensureCodesLocked() {
	rot := rotationFor(e.dims)
	w := rot.words()
	n := len(e.ids)
	if len(e.codes) == n*w {
		return
	}
	codes := make([]uint64, n*w, n*w+n*w/8)
	parallelRange(n, 512, func(lo, hi int) {
		buf := make([]float32, rot.size)
		for r := lo; r < hi; r++ {
			codeOf(rot, e.data[r*e.dims:(r+1)*e.dims], codes[r*w:(r+1)*w], buf)
		}
	})
	e.codes = codes
}

// quantActive reports whether searches take the quantised first pass; the
// caller holds e.mu (either way).
func (e *Exact) quantActive() bool {
	return e.quantMin > 0 && len(e.ids) >= e.quantMin && len(e.codes) == len(e.ids)*rotationFor(e.dims).words()
}

// maybeQuantLocked turns the quantised pass on once the index is large
// enough; the caller holds e.mu for writing.
func (e *Exact) maybeQuantLocked() {
	if e.quantMin > 0 && len(e.ids) >= e.quantMin {
		e.ensureCodesLocked()
	}
}

// putCodeLocked sets row r's code (r may be one past the last code).
func (e *Exact) putCodeLocked(r int, row []int8) {
	if e.codes == nil {
		return
	}
	rot := rotationFor(e.dims)
	w := rot.words()
	if len(e.codes) < (r+1)*w {
		e.codes = append(e.codes, make([]uint64, (r+1)*w-len(e.codes))...)
	}
	codeOf(rot, row, e.codes[r*w:(r+1)*w], make([]float32, rot.size))
}

// quantQuery is the code of a weighted query.
func (e *Exact) quantQuery(w []float32) []uint64 {
	rot := rotationFor(e.dims)
	q := make([]uint64, rot.words())
	codeOf(rot, w, q, make([]float32, rot.size))
	return q
}

// quantFirst runs the first pass for the weighted query w.
func (e *Exact) quantFirst(w []float32) *quantPass {
	n := len(e.ids)
	q := e.quantQuery(w)
	p := &quantPass{dist: make([]uint16, n), hist: make([]int32, 64*len(q)+1)}
	hamming(e.codes[:n*len(q)], q, p.dist, p.hist)
	return p
}

// quantSearch is searchWeighted through the first pass: the nearest
// candidates by code that allow accepts, rescored exactly. p is
// quantFirst(w) (shared by the searches of one query).
func (e *Exact) quantSearch(w []float32, k int, allow func(string) bool, p *quantPass) []scored {
	n := len(e.ids)
	h := topK{k: min(k, n)}
	h.items = make([]scored, 0, h.k)
	want := quantCandidates(k, n)
	cand := p.nearest(e.ids, want, allow)
	for _, r := range cand[:min(len(cand), want)] {
		h.offer(e.rowCosine(w, int(r)), int(r), e.ids, nil)
	}
	return h.sorted()
}
