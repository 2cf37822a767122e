package vindex

import (
	"fmt"
	"math"
	"slices"
	"sync"

	"github.com/odekmem/odekmem/internal/par"
)

// Exact is exact cosine search over a contiguous, row-major matrix of
// int8-quantised vectors with one float32 factor per row: row r stands for
// the unit vector data[r]·fac[r] (fac = 1/‖data[r]‖). Each row is the
// vector quantised with a per-row max-abs/127 scale, which is exactly the
// vector cache's encoding, so a vector that went through that round trip
// is stored losslessly, in a quarter of the memory a float32 matrix needs;
// search streams a quarter of the bytes. Add appends (or overwrites in
// place), Remove swap-removes the last row into the hole, so both are
// O(dims). Exact is safe for concurrent use.
type Exact struct {
	mu   sync.RWMutex
	dims int
	data []int8    // len(ids)*dims
	fac  []float32 // len(ids): row r's vector is data[r]·fac[r]
	ids  []string
	pos  map[string]int

	idf    bool
	idfPow float64 // exponent applied to the IDF weight
	df     []int32 // per dimension: number of stored vectors with a nonzero entry

	// quantMin is the row count from which searches take the quantised
	// first pass (0: never); codes are the rows' binary codes (quant.go),
	// nil until the index first reaches quantMin rows.
	quantMin int
	codes    []uint64
}

// NewExact returns an empty exact index. With opts.IDF the query is
// reweighted per dimension by (ln((N+1)/(df[d]+1)) + 1)^p, p =
// opts.IDFPower (default DefaultIDFPower), and renormalised before scoring;
// stored vectors never change.
//
// A hashed dimension mixes many features, so its document frequency is a
// blurred copy of its features' frequencies; the plain IDF (p = 1) leaves
// too much weight on dimensions dominated by common words. p = 4 measured
// best on LoCoMo (hash-only evidence recall@10 0.546 at p=1, 0.585 at p=4).
func NewExact(dims int, opts Options) *Exact {
	e := &Exact{dims: dims, pos: make(map[string]int), idf: opts.IDF, idfPow: opts.IDFPower, quantMin: opts.QuantMin}
	if e.idfPow <= 0 {
		e.idfPow = DefaultIDFPower
	}
	switch {
	case e.quantMin == 0:
		e.quantMin = DefaultQuantMin
	case e.quantMin < 0:
		e.quantMin = 0
	}
	if opts.IDF {
		e.df = make([]int32, dims)
	}
	return e
}

// NewExactFrom returns an index holding the rows of a snapshot, keeping
// the slices it is given (they may be a private memory mapping: the index
// writes them only in place, as it would its own): ids[r]'s unit vector is
// rows[r*dims:(r+1)*dims]·facs[r]; df (nil: counted here) is the per
// dimension count of nonzero entries; codes (nil: computed when needed)
// are the rows' binary codes of CodeVersion. Slices are clipped so that
// growing the index copies them. pos (nil: built here, refusing an id
// given twice) is ids[r] → r for every row, as a caller that has checked
// the ids already built it: the index takes it over (and keeps it
// current), so that a store's open builds that map once.
func NewExactFrom(dims int, opts Options, ids []string, rows []int8, facs []float32, df []int32, codes []uint64, pos map[string]int) (*Exact, error) {
	n := len(ids)
	if len(rows) != n*dims || len(facs) != n || (df != nil && len(df) != dims) {
		return nil, fmt.Errorf("vindex: snapshot of %d ids has %d values and %d factors for %d dimensions", n, len(rows), len(facs), dims)
	}
	if pos != nil && len(pos) != n {
		return nil, fmt.Errorf("vindex: snapshot of %d ids has %d positions", n, len(pos))
	}
	e := NewExact(dims, opts)
	e.ids = ids[:n:n]
	e.data = rows[:len(rows):len(rows)]
	e.fac = facs[:n:n]
	e.pos = pos
	if pos == nil {
		e.pos = make(map[string]int, n)
		for r, id := range ids {
			if _, dup := e.pos[id]; dup {
				return nil, fmt.Errorf("vindex: snapshot holds %s twice", quoteID(id))
			}
			e.pos[id] = r
		}
	}
	if e.idf {
		if df != nil {
			e.df = df[:dims:dims]
		} else {
			for r := 0; r < n; r++ {
				e.countDF(e.data[r*dims:(r+1)*dims], +1)
			}
		}
	}
	if w := rotationFor(dims).words(); codes != nil && len(codes) == n*w {
		e.codes = codes[: n*w : n*w]
	}
	return e, nil
}

// Export calls fn with the index's rows as they are (ids, rows, factors,
// the per-dimension counts when IDF is on, and the binary codes when the
// index keeps them), under the read lock: fn must not keep or change them.
func (e *Exact) Export(fn func(ids []string, rows []int8, facs []float32, df []int32, codes []uint64)) {
	e.mu.RLock()
	defer e.mu.RUnlock()
	var codes []uint64
	if len(e.codes) == len(e.ids)*rotationFor(e.dims).words() {
		codes = e.codes
	}
	fn(e.ids, e.data, e.fac, e.df, codes)
}

// Dims returns the vector width.
func (e *Exact) Dims() int { return e.dims }

// Len returns the number of stored vectors.
func (e *Exact) Len() int {
	e.mu.RLock()
	defer e.mu.RUnlock()
	return len(e.ids)
}

// IDs returns the stored ids in row order (a copy).
func (e *Exact) IDs() []string {
	e.mu.RLock()
	defer e.mu.RUnlock()
	return append([]string(nil), e.ids...)
}

func (e *Exact) checkDims(what string, n int) error {
	if n != e.dims {
		return fmt.Errorf("vindex: %s has %d dimensions, index has %d", what, n, e.dims)
	}
	return nil
}

// Reserve grows the index's storage to hold n more vectors without
// reallocating.
func (e *Exact) Reserve(n int) {
	if n <= 0 {
		return
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	e.data = slices.Grow(e.data, n*e.dims)
	e.fac = slices.Grow(e.fac, n)
	e.ids = slices.Grow(e.ids, n)
	if e.codes != nil {
		e.codes = slices.Grow(e.codes, n*rotationFor(e.dims).words())
	}
}

// Add inserts id's vector, or replaces it if id is already stored. The
// vector is quantised to int8 (per-row max-abs/127 scale) and normalised;
// Vector returns that quantised unit vector.
func (e *Exact) Add(id string, vec []float32) error {
	if err := e.checkDims("vector for "+quoteID(id), len(vec)); err != nil {
		return err
	}
	row := make([]int8, e.dims)
	f := quantizeRow(row, vec)
	e.mu.Lock()
	defer e.mu.Unlock()
	e.putLocked(id, row, f)
	return nil
}

// AddMany is Add for many vectors (ids[i] gets vecs[i]; a later duplicate
// replaces an earlier one) under one lock, quantising in parallel. Nothing
// is added if any vector has the wrong width.
func (e *Exact) AddMany(ids []string, vecs [][]float32) error {
	if len(ids) != len(vecs) {
		return fmt.Errorf("vindex: AddMany got %d ids and %d vectors", len(ids), len(vecs))
	}
	for i, v := range vecs {
		if err := e.checkDims("vector for "+quoteID(ids[i]), len(v)); err != nil {
			return err
		}
	}
	d := e.dims
	rows := make([]int8, len(ids)*d)
	facs := make([]float32, len(ids))
	parallelRange(len(ids), 256, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			facs[i] = quantizeRow(rows[i*d:(i+1)*d], vecs[i])
		}
	})
	e.mu.Lock()
	defer e.mu.Unlock()
	e.addRowsLocked(ids, rows, facs)
	return nil
}

// AddQuantized adds many vectors given already quantised: row i
// (rows[i*Dims():(i+1)*Dims()]) stands for the unit vector rows_i/‖rows_i‖,
// the same vector Add stores for any float vector whose int8 quantisation
// (max-abs/127 scale) is rows_i. This is the bulk-load path for the vector
// cache, whose entries are exactly that quantisation: nothing is converted
// to float. A later duplicate id replaces an earlier one.
func (e *Exact) AddQuantized(ids []string, rows []int8) error {
	d := e.dims
	if len(rows) != len(ids)*d {
		return fmt.Errorf("vindex: AddQuantized got %d ids and %d values for %d dimensions", len(ids), len(rows), d)
	}
	facs := make([]float32, len(ids))
	for i := range facs {
		facs[i] = rowFactor(rows[i*d : (i+1)*d])
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	e.addRowsLocked(ids, rows, facs)
	return nil
}

func (e *Exact) addRowsLocked(ids []string, rows []int8, facs []float32) {
	d := e.dims
	e.data = slices.Grow(e.data, len(rows))
	e.fac = slices.Grow(e.fac, len(facs))
	e.ids = slices.Grow(e.ids, len(ids))
	for i, id := range ids {
		e.putLocked(id, rows[i*d:(i+1)*d], facs[i])
	}
}

// growLocked makes room for one more row without doubling a large
// snapshot-backed slice: a store of 100k rows that gains one atom copies
// its matrix once, with an eighth to spare.
func (e *Exact) growLocked() {
	if len(e.ids) < cap(e.ids) {
		return
	}
	extra := max(64, len(e.ids)/8)
	e.ids = slices.Grow(e.ids, extra)
	e.data = slices.Grow(e.data, extra*e.dims)
	e.fac = slices.Grow(e.fac, extra)
	if e.codes != nil {
		e.codes = slices.Grow(e.codes, extra*rotationFor(e.dims).words())
	}
}

// putLocked stores one quantised row (copied) under id.
func (e *Exact) putLocked(id string, row []int8, f float32) {
	if r, ok := e.pos[id]; ok {
		old := e.data[r*e.dims : (r+1)*e.dims]
		e.countDF(old, -1)
		copy(old, row)
		e.fac[r] = f
		e.countDF(old, +1)
		e.putCodeLocked(r, old)
		return
	}
	e.growLocked()
	e.pos[id] = len(e.ids)
	e.ids = append(e.ids, id)
	e.data = append(e.data, row...)
	e.fac = append(e.fac, f)
	e.countDF(row, +1)
	if e.codes != nil {
		e.putCodeLocked(len(e.ids)-1, row)
	} else {
		e.maybeQuantLocked()
	}
}

// quantizeRow writes vec's int8 quantisation (scale max|x|/127; non-finite
// entries count as 0) into dst and returns the factor 1/‖dst‖ that makes
// dst a unit vector (0 for a zero vector).
func quantizeRow(dst []int8, vec []float32) float32 {
	var maxAbs float32
	for _, x := range vec {
		if a := float32(math.Abs(float64(x))); a > maxAbs && !math.IsInf(float64(a), 0) {
			maxAbs = a
		}
	}
	if maxAbs == 0 {
		clear(dst)
		return 0
	}
	scale := maxAbs / 127
	for i, x := range vec {
		y := math.Round(float64(x / scale))
		switch {
		case y != y || math.IsInf(y, 0): // non-finite input
			y = 0
		case y > 127:
			y = 127
		case y < -127:
			y = -127
		}
		dst[i] = int8(y)
	}
	return rowFactor(dst)
}

// rowFactor is 1/‖row‖, or 0 for a zero row.
func rowFactor(row []int8) float32 {
	var ss int64
	for _, x := range row {
		ss += int64(x) * int64(x)
	}
	if ss == 0 {
		return 0
	}
	return float32(1 / math.Sqrt(float64(ss)))
}

// parallelRange calls fn on consecutive chunks of [0, n) across
// GOMAXPROCS goroutines; below minChunk items per goroutine it runs inline.
func parallelRange(n, minChunk int, fn func(lo, hi int)) { par.Range(n, minChunk, 0, fn) }

func (e *Exact) countDF(row []int8, delta int32) {
	if !e.idf {
		return
	}
	df := e.df[:len(row)]
	for d, x := range row {
		// branchless: the sign bit of x|-x is set exactly when x != 0
		df[d] += delta * int32(uint8(x|-x)>>7)
	}
}

// Remove deletes id (moving the last row into its slot) and reports
// whether it was present.
func (e *Exact) Remove(id string) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	r, ok := e.pos[id]
	if !ok {
		return false
	}
	d := e.dims
	e.countDF(e.data[r*d:(r+1)*d], -1)
	last := len(e.ids) - 1
	if r != last {
		copy(e.data[r*d:(r+1)*d], e.data[last*d:(last+1)*d])
		e.fac[r] = e.fac[last]
		e.ids[r] = e.ids[last]
		e.pos[e.ids[r]] = r
	}
	if e.codes != nil {
		w := rotationFor(d).words()
		if r != last {
			copy(e.codes[r*w:(r+1)*w], e.codes[last*w:(last+1)*w])
		}
		e.codes = e.codes[:last*w]
	}
	e.ids[last] = ""
	e.ids = e.ids[:last]
	e.data = e.data[:last*d]
	e.fac = e.fac[:last]
	delete(e.pos, id)
	return true
}

// rowVector appends row r's (dequantised, unit) vector to dst.
func (e *Exact) rowVector(dst []float32, r int) []float32 {
	f := e.fac[r]
	for _, x := range e.data[r*e.dims : (r+1)*e.dims] {
		dst = append(dst, float32(x)*f)
	}
	return dst
}

// Vector returns a copy of id's stored vector (the dequantised unit
// vector the index scores with).
func (e *Exact) Vector(id string) ([]float32, bool) {
	e.mu.RLock()
	defer e.mu.RUnlock()
	r, ok := e.pos[id]
	if !ok {
		return nil, false
	}
	return e.rowVector(make([]float32, 0, e.dims), r), true
}

// Has reports whether id is stored.
func (e *Exact) Has(id string) bool {
	e.mu.RLock()
	defer e.mu.RUnlock()
	_, ok := e.pos[id]
	return ok
}

// Query returns the query vector Search actually scores with: q itself
// (normalised) or, with IDF enabled, q reweighted by the current IDF and
// renormalised.
func (e *Exact) Query(q []float32) ([]float32, error) {
	if err := e.checkDims("query", len(q)); err != nil {
		return nil, err
	}
	e.mu.RLock()
	defer e.mu.RUnlock()
	return e.queryLocked(q), nil
}

func (e *Exact) queryLocked(q []float32) []float32 {
	w := make([]float32, len(q))
	copy(w, q)
	if e.idf && len(e.ids) > 0 {
		n := float64(len(e.ids) + 1)
		for d, x := range w {
			if x != 0 {
				iw := math.Log(n/float64(e.df[d]+1)) + 1
				if e.idfPow != 1 {
					iw = math.Pow(iw, e.idfPow)
				}
				w[d] = x * float32(iw)
			}
		}
	}
	normalize(w)
	return w
}

// rowCosine scores row r against a weighted query.
func (e *Exact) rowCosine(w []float32, r int) float32 {
	return dotI8(w, e.data[r*e.dims:(r+1)*e.dims]) * e.fac[r]
}

// Cosine returns the cosine between the (weighted) query and id's vector.
func (e *Exact) Cosine(q []float32, id string) (float32, bool) { return e.cosine(q, id, true) }

// CosineWeighted is Cosine for a query already returned by Query (no
// reweighting), for scoring many ids against one query.
func (e *Exact) CosineWeighted(w []float32, id string) (float32, bool) {
	return e.cosine(w, id, false)
}

// cosine scores id's row against v, reweighting v first when weigh is set.
func (e *Exact) cosine(v []float32, id string, weigh bool) (float32, bool) {
	if len(v) != e.dims {
		return 0, false
	}
	e.mu.RLock()
	defer e.mu.RUnlock()
	r, ok := e.pos[id]
	if !ok {
		return 0, false
	}
	if weigh {
		v = e.queryLocked(v)
	}
	return e.rowCosine(v, r), true
}

// CosinesWeighted scores many ids against a query already returned by
// Query (or a document vector, for raw cosines) under one lock: out[i] is
// the cosine of ids[i], ok[i] whether it is stored. out and ok must be at
// least as long as ids.
func (e *Exact) CosinesWeighted(w []float32, ids []string, out []float32, ok []bool) {
	if len(w) != e.dims {
		clear(ok[:len(ids)])
		return
	}
	e.mu.RLock()
	defer e.mu.RUnlock()
	for i, id := range ids {
		r, found := e.pos[id]
		ok[i] = found
		out[i] = 0
		if found {
			out[i] = e.rowCosine(w, r)
		}
	}
}

// Search returns the k stored vectors most similar to q, by descending
// cosine, among those whose id allow accepts (nil accepts all).
func (e *Exact) Search(q []float32, k int, allow func(id string) bool) ([]Hit, error) {
	if err := e.checkDims("query", len(q)); err != nil {
		return nil, err
	}
	e.mu.RLock()
	defer e.mu.RUnlock()
	return e.searchWeighted(e.queryLocked(q), k, allow), nil
}

// SearchWeighted is Search for a query already returned by Query.
func (e *Exact) SearchWeighted(w []float32, k int, allow func(id string) bool) ([]Hit, error) {
	if err := e.checkDims("query", len(w)); err != nil {
		return nil, err
	}
	e.mu.RLock()
	defer e.mu.RUnlock()
	return e.searchWeighted(w, k, allow), nil
}

func (e *Exact) searchWeighted(w []float32, k int, allow func(string) bool) []Hit {
	n := len(e.ids)
	if k <= 0 || n == 0 {
		return nil
	}
	if e.quantActive() {
		return e.hits(e.quantSearch(w, k, allow, e.quantFirst(w)))
	}
	h := topK{k: min(k, n)}
	h.items = make([]scored, 0, h.k)
	d := e.dims
	data := e.data[:n*d]
	fac := e.fac[:n]
	var s4 [4]float32
	r := 0
	for ; r+4 <= n; r += 4 {
		dot4I8(w, data[r*d:], &s4)
		f := fac[r : r+4 : r+4]
		for j, s := range s4 {
			h.offer(s*f[j], r+j, e.ids, allow)
		}
	}
	for ; r < n; r++ {
		h.offer(e.rowCosine(w, r), r, e.ids, allow)
	}
	return e.hits(h.sorted())
}

// hits names the rows of items.
func (e *Exact) hits(items []scored) []Hit {
	out := make([]Hit, len(items))
	for i, it := range items {
		out[i] = Hit{ID: e.ids[it.row], Cosine: it.s}
	}
	return out
}

func quoteID(id string) string {
	if len(id) > 40 {
		id = id[:40] + "…"
	}
	return fmt.Sprintf("%q", id)
}

func normalize(v []float32) {
	var ss float64
	for _, x := range v {
		ss += float64(x) * float64(x)
	}
	if ss == 0 || math.Abs(ss-1) < 1e-6 {
		return
	}
	inv := float32(1 / math.Sqrt(ss))
	for i := range v {
		v[i] *= inv
	}
}

// PairStats samples up to pairs pairs of distinct stored rows (a fixed
// sequence, so the same rows give the same answer) and returns the mean
// and standard deviation of their cosines; ok is false with fewer than two
// rows.
func (e *Exact) PairStats(pairs int) (mean, std float64, ok bool) {
	e.mu.RLock()
	defer e.mu.RUnlock()
	n := len(e.ids)
	if n < 2 || pairs <= 0 {
		return 0, 0, false
	}
	d := e.dims
	a := make([]float32, 0, d)
	var x uint64 = 0x2545f4914f6cdd1d
	next := func() int {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
		return int(x % uint64(n))
	}
	var sum, sum2 float64
	k := 0
	for range pairs {
		i, j := next(), next()
		if i == j {
			continue
		}
		a = e.rowVector(a[:0], i)
		c := float64(e.rowCosine(a, j))
		sum += c
		sum2 += c * c
		k++
	}
	if k == 0 {
		return 0, 0, false
	}
	mean = sum / float64(k)
	return mean, math.Sqrt(max(sum2/float64(k)-mean*mean, 0)), true
}
