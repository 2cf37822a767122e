package vindex

import (
	"encoding/binary"
	"errors"
	"math"
	"slices"
	"sort"
	"sync"

	"github.com/odekmem/odekmem/internal/embed"
	"github.com/odekmem/odekmem/internal/par"
)

// LexHit is one BM25 result. Rank is 1-based.
type LexHit struct {
	ID    string
	Score float64
	Rank  int
}

// BM25 is an incremental Okapi BM25 index over embed.Terms (the same
// tokenizer, stop words and stemmer as the hash embedder). Documents are
// numbered densely (numbers of removed documents are reused), postings are
// slices of (document, tf), and a search accumulates scores in a dense
// array, so a query costs one pass over its terms' postings. Statistics
// (N, average length, document frequencies) are always current. BM25 is
// safe for concurrent use.
//
// An index loaded from a snapshot (NewBM25From) keeps the snapshot's term
// table and postings as they are (a read-only, possibly memory-mapped
// base) and copies a term's postings into an overlay only when a change
// touches that term, so loading costs no tokenising and no per-term
// allocation.
type BM25 struct {
	mu       sync.RWMutex
	k1, b    float64
	num      map[string]int32 // id → document number
	docs     []lexDoc         // by document number
	free     []int32
	postings map[string][]posting // overlay: authoritative for the terms it holds
	base     *lexBase             // snapshot terms and postings (nil: none)
	totalLen int
	pool     sync.Pool // *[]float64 score accumulators
}

type lexDoc struct {
	id     string
	length int
	terms  []string // distinct terms, for removal (nil for a document of the base: see RemoveText)
	alive  bool
}

// posting is one (document, term frequency) pair.
type posting struct {
	doc int32
	tf  int32
}

// LexPosting is one posting as Export hands it out.
type LexPosting = posting

// lexBase is the term table of a snapshot: terms sorted, and the
// postings of term i encoded at post[start[i]:start[i+1]] (see
// AppendPostings).
type lexBase struct {
	terms func(i int) string
	n     int
	start []uint32
	post  []byte
}

// find returns the postings of t in the base (ok false when absent).
func (b *lexBase) find(t string) ([]posting, bool) {
	i := sort.Search(b.n, func(i int) bool { return b.terms(i) >= t })
	if i == b.n || b.terms(i) != t {
		return nil, false
	}
	p, _ := DecodePostings(b.post[b.start[i]:b.start[i+1]], -1)
	return p, true
}

// AppendPostings encodes one term's postings (ascending documents) as a
// snapshot stores them: the count, then per posting the gap from the
// previous document and the term frequency, all unsigned varints (about
// 2.5 bytes a posting for short notes, against 8 in memory).
func AppendPostings(b []byte, ps []LexPosting) []byte {
	b = binary.AppendUvarint(b, uint64(len(ps)))
	prev := int32(-1)
	for _, p := range ps {
		b = binary.AppendUvarint(b, uint64(p.doc-prev-1))
		b = binary.AppendUvarint(b, uint64(p.tf))
		prev = p.doc
	}
	return b
}

// CheckPostings checks what AppendPostings wrote, as DecodePostings with
// docs ≥ 0 does, without decoding it into memory; it returns the count.
func CheckPostings(b []byte, docs int) (int, error) {
	n, k := binary.Uvarint(b)
	if k <= 0 || n > uint64(len(b)) {
		return 0, errors.New("bad posting count")
	}
	b = b[k:]
	prev := int64(-1)
	for range n {
		var gap, tf uint64
		if len(b) >= 2 && b[0] < 0x80 && b[1] < 0x80 {
			// Both one-byte uvarints (most postings: a small gap, a
			// frequency under 128), read without the general decoder:
			// every posting is checked at each open.
			gap, tf = uint64(b[0]), uint64(b[1])
			b = b[2:]
		} else {
			var k1, k2 int
			gap, k1 = binary.Uvarint(b)
			if k1 <= 0 {
				return 0, errors.New("truncated postings")
			}
			tf, k2 = binary.Uvarint(b[k1:])
			if k2 <= 0 {
				return 0, errors.New("truncated postings")
			}
			b = b[k1+k2:]
		}
		doc := prev + 1 + int64(gap)
		if gap > uint64(docs) || doc >= int64(docs) || tf == 0 || tf > math.MaxInt32 {
			return 0, errors.New("posting out of range")
		}
		prev = doc
	}
	if len(b) != 0 {
		return 0, errors.New("data after the postings")
	}
	return int(n), nil
}

// DocLen is the length BM25 gives text (its number of index terms).
func DocLen(text string) int { return len(embed.Terms(text)) }

// DecodePostings decodes what AppendPostings wrote; with docs ≥ 0 it
// checks every document is below docs and every frequency positive and
// that nothing follows, and reports damage as an error.
func DecodePostings(b []byte, docs int) ([]LexPosting, error) {
	n, k := binary.Uvarint(b)
	if k <= 0 || n > uint64(len(b)) {
		return nil, errors.New("bad posting count")
	}
	b = b[k:]
	out := make([]posting, n)
	prev := int64(-1)
	for i := range out {
		gap, k1 := binary.Uvarint(b)
		if k1 <= 0 {
			return nil, errors.New("truncated postings")
		}
		tf, k2 := binary.Uvarint(b[k1:])
		if k2 <= 0 {
			return nil, errors.New("truncated postings")
		}
		b = b[k1+k2:]
		doc := prev + 1 + int64(gap)
		if docs >= 0 && (gap > uint64(docs) || doc >= int64(docs) || tf == 0 || tf > math.MaxInt32) {
			return nil, errors.New("posting out of range")
		}
		out[i] = posting{int32(doc), int32(tf)}
		prev = doc
	}
	if docs >= 0 && len(b) != 0 {
		return nil, errors.New("data after the postings")
	}
	return out, nil
}

// lookup is t's postings; the caller holds x.mu.
func (x *BM25) lookup(t string) []posting {
	if p, ok := x.postings[t]; ok || x.base == nil {
		return p
	}
	p, _ := x.base.find(t)
	return p
}

// own returns t's postings in the overlay, copying them from the base on
// first change; the caller holds x.mu for writing.
func (x *BM25) own(t string) []posting {
	if p, ok := x.postings[t]; ok || x.base == nil {
		return p
	}
	p, ok := x.base.find(t)
	if !ok {
		return nil
	}
	x.postings[t] = p // decoded: a copy of its own
	return p
}

// setPostings stores t's changed postings (dropping an empty list unless
// the base still holds the term).
func (x *BM25) setPostings(t string, p []posting) {
	if len(p) == 0 {
		if x.base != nil {
			if _, inBase := x.base.find(t); inBase {
				x.postings[t] = nil
				return
			}
		}
		delete(x.postings, t)
		return
	}
	x.postings[t] = p
}

// LexSnapshot is a BM25 index as a snapshot holds it: document i is
// IDs[i] with DocLen[i] terms, Terms(j) is the j-th term in increasing
// order, and its postings (document numbers are entry indexes) are
// encoded (AppendPostings) at Post[Start[j]:Start[j+1]].
type LexSnapshot struct {
	IDs      []string
	DocLen   []uint32
	NTerms   int
	Terms    func(j int) string
	Start    []uint32
	Post     []byte
	TotalLen int
}

// NewBM25From returns an index (DefaultK1, DefaultB) holding exactly the
// snapshot, whose slices it keeps and never writes.
func NewBM25From(s LexSnapshot) *BM25 {
	x := NewBM25()
	n := len(s.IDs)
	x.num = make(map[string]int32, n)
	x.docs = make([]lexDoc, n)
	for i, id := range s.IDs {
		x.docs[i] = lexDoc{id: id, length: int(s.DocLen[i]), alive: true}
		x.num[id] = int32(i)
	}
	x.totalLen = s.TotalLen
	x.base = &lexBase{terms: s.Terms, n: s.NTerms, start: s.Start, post: s.Post}
	return x
}

// Export lays the index out as a snapshot whose document i is order[i]
// (every indexed id, each once): doc lengths, then the terms in
// increasing order with their postings renumbered, in ascending document
// order. term is called for each term with its postings (valid only
// during the call).
func (x *BM25) Export(order []string, docLen func(i int, n uint32), term func(t string, post []LexPosting)) (totalLen int, ok bool) {
	x.mu.RLock()
	defer x.mu.RUnlock()
	if len(order) != len(x.num) {
		return 0, false
	}
	entry := make([]int32, len(x.docs))
	for i := range entry {
		entry[i] = -1
	}
	for i, id := range order {
		n, found := x.num[id]
		if !found {
			return 0, false
		}
		entry[n] = int32(i)
		docLen(i, uint32(x.docs[n].length))
	}
	var terms []string
	for t, p := range x.postings {
		if len(p) > 0 {
			terms = append(terms, t)
		}
	}
	if x.base != nil {
		for i := 0; i < x.base.n; i++ {
			if t := x.base.terms(i); x.postings[t] == nil {
				if _, over := x.postings[t]; !over {
					terms = append(terms, t)
				}
			}
		}
	}
	sort.Strings(terms)
	var buf []LexPosting
	for _, t := range terms {
		buf = buf[:0]
		for _, e := range x.lookup(t) {
			if d := entry[e.doc]; d >= 0 {
				buf = append(buf, posting{d, e.tf})
			}
		}
		if len(buf) == 0 {
			continue
		}
		slices.SortFunc(buf, func(a, b posting) int { return int(a.doc - b.doc) })
		term(t, buf)
	}
	return x.totalLen, true
}

// Default BM25 parameters. Atoms are short (one or two sentences), so
// length normalisation helps little and term-frequency saturation should
// come early: on LoCoMo k1=0.6, b=0.2 gives evidence recall@10 0.617 against
// 0.601 for the textbook k1=1.2, b=0.75, and the hybrid 0.627 against 0.610.
const (
	DefaultK1 = 0.6
	DefaultB  = 0.2
)

// NewBM25 returns an empty index with DefaultK1 and DefaultB.
func NewBM25() *BM25 { return NewBM25Params(DefaultK1, DefaultB) }

// NewBM25Params returns an empty index with the given parameters.
func NewBM25Params(k1, b float64) *BM25 {
	return &BM25{k1: k1, b: b, num: make(map[string]int32), postings: make(map[string][]posting)}
}

// Len returns the number of indexed documents.
func (x *BM25) Len() int {
	x.mu.RLock()
	defer x.mu.RUnlock()
	return len(x.num)
}

// Add indexes text under id, replacing any previous text for id.
func (x *BM25) Add(id, text string) {
	d := analyze(text)
	x.mu.Lock()
	defer x.mu.Unlock()
	x.insertLocked(id, d)
}

// AddMany is Add for many documents (ids[i] gets texts[i]; a later
// duplicate replaces an earlier one): the texts are tokenised in parallel
// across GOMAXPROCS goroutines, then indexed under one lock.
func (x *BM25) AddMany(ids, texts []string) { x.AddManyN(ids, texts, 0) }

// AddManyN is AddMany tokenising on at most workers goroutines (0 =
// GOMAXPROCS), for a caller that fills the index in the background and
// must leave cores to others.
func (x *BM25) AddManyN(ids, texts []string, workers int) {
	n := min(len(ids), len(texts))
	docs := make([]analyzed, n)
	par.Range(n, 64, workers, func(lo, hi int) {
		tf := make(map[string]int32, 64)
		for i := lo; i < hi; i++ {
			docs[i] = analyzeWith(texts[i], tf)
		}
	})
	x.mu.Lock()
	defer x.mu.Unlock()
	x.docs = slices.Grow(x.docs, n-len(x.free))
	for i := range n {
		x.insertLocked(ids[i], docs[i])
	}
}

// analyzed is a tokenised document: its length in terms and its distinct
// terms with their frequencies.
type analyzed struct {
	length int
	terms  []string
	tfs    []int32
}

func analyze(text string) analyzed { return analyzeWith(text, nil) }

// analyzeWith is analyze reusing tf (cleared first; nil = a fresh map)
// for the counting.
func analyzeWith(text string, tf map[string]int32) analyzed {
	terms := embed.Terms(text)
	if tf == nil {
		tf = make(map[string]int32, len(terms))
	} else {
		clear(tf)
	}
	for _, t := range terms {
		tf[t]++
	}
	a := analyzed{length: len(terms), terms: make([]string, 0, len(tf)), tfs: make([]int32, 0, len(tf))}
	for t, c := range tf {
		a.terms = append(a.terms, t)
		a.tfs = append(a.tfs, c)
	}
	return a
}

func (x *BM25) insertLocked(id string, a analyzed) {
	x.removeLocked(id, nil)
	var n int32
	if len(x.free) > 0 {
		n = x.free[len(x.free)-1]
		x.free = x.free[:len(x.free)-1]
	} else {
		n = int32(len(x.docs))
		x.docs = append(x.docs, lexDoc{})
	}
	x.docs[n] = lexDoc{id: id, length: a.length, terms: a.terms, alive: true}
	x.num[id] = n
	x.totalLen += a.length
	for i, t := range a.terms {
		x.postings[t] = append(x.own(t), posting{n, a.tfs[i]})
	}
}

// Remove drops id and reports whether it was indexed. For a document of a
// snapshot (NewBM25From) prefer RemoveText: without its text the removal
// visits every posting.
func (x *BM25) Remove(id string) bool {
	x.mu.Lock()
	defer x.mu.Unlock()
	return x.removeLocked(id, nil)
}

// RemoveText is Remove for a document indexed with text (its terms are
// recomputed instead of visiting every posting).
func (x *BM25) RemoveText(id, text string) bool {
	x.mu.Lock()
	defer x.mu.Unlock()
	n, ok := x.num[id]
	if !ok {
		return false
	}
	var terms []string
	if x.docs[n].terms == nil {
		terms = analyze(text).terms
	}
	return x.removeLocked(id, terms)
}

// removeLocked drops id; terms are its distinct terms when its document
// did not keep them (nil: visit every term).
func (x *BM25) removeLocked(id string, terms []string) bool {
	n, ok := x.num[id]
	if !ok {
		return false
	}
	d := &x.docs[n]
	if d.terms != nil {
		terms = d.terms
	}
	if terms == nil {
		terms = x.termsOfLocked(n)
	}
	for _, t := range terms {
		p := x.own(t)
		for i := range p {
			if p[i].doc == n {
				p[i] = p[len(p)-1]
				p = p[:len(p)-1]
				break
			}
		}
		x.setPostings(t, p)
	}
	x.totalLen -= d.length
	*d = lexDoc{}
	x.free = append(x.free, n)
	delete(x.num, id)
	return true
}

// termsOfLocked finds the terms whose postings hold document n, visiting
// every posting.
func (x *BM25) termsOfLocked(n int32) []string {
	var out []string
	has := func(p []posting) bool {
		for _, e := range p {
			if e.doc == n {
				return true
			}
		}
		return false
	}
	for t, p := range x.postings {
		if has(p) {
			out = append(out, t)
		}
	}
	if x.base != nil {
		for i := 0; i < x.base.n; i++ {
			t := x.base.terms(i)
			if _, over := x.postings[t]; over {
				continue
			}
			if p, _ := x.base.find(t); has(p) {
				out = append(out, t)
			}
		}
	}
	return out
}

// Search returns the top k documents for query among ids allow accepts
// (nil = all), best first. Documents sharing no term with the query are
// never returned.
func (x *BM25) Search(query string, k int, allow func(id string) bool) []LexHit {
	hits, _, _ := x.searchAll(query, k, allow, nil)
	return hits
}

// SearchNorm is Search that also returns each hit's score divided by the
// query's saturation bound Σ idf(t)·(k1+1) over distinct query terms: the
// fraction of the query's information the document matches, in [0, 1),
// comparable across queries.
func (x *BM25) SearchNorm(query string, k int, allow func(id string) bool) ([]LexHit, []float64) {
	hits, _, bound := x.searchAll(query, k, allow, nil)
	norm := make([]float64, len(hits))
	if bound > 0 {
		for i, h := range hits {
			norm[i] = h.Score / bound
		}
	}
	return hits, norm
}

// searchAll returns the top k hits and the query's saturation bound; if
// extra is non-nil, it also fills extra[id] with the raw score of each id
// already present as a key (documents outside the top k included).
func (x *BM25) searchAll(query string, k int, allow func(string) bool, extra map[string]float64) ([]LexHit, map[string]float64, float64) {
	if k <= 0 {
		return nil, extra, 0
	}
	qterms := embed.Terms(query)
	x.mu.RLock()
	defer x.mu.RUnlock()
	n := float64(len(x.num))
	if n == 0 || len(qterms) == 0 {
		return nil, extra, 0
	}
	avg := float64(x.totalLen) / n
	if avg == 0 {
		avg = 1
	}
	sp, _ := x.pool.Get().(*[]float64)
	if sp == nil {
		sp = new([]float64)
	}
	if cap(*sp) < len(x.docs) {
		*sp = make([]float64, len(x.docs))
	}
	scores := (*sp)[:len(x.docs)]
	touched := make([]int32, 0, 256)
	seen := make(map[string]bool, len(qterms))
	var bound float64
	for _, t := range qterms {
		if seen[t] {
			continue
		}
		seen[t] = true
		p := x.lookup(t)
		df := float64(len(p))
		idf := math.Log(1 + (n-df+0.5)/(df+0.5))
		bound += idf * (x.k1 + 1)
		for _, e := range p {
			f := float64(e.tf)
			dl := float64(x.docs[e.doc].length)
			if scores[e.doc] == 0 {
				touched = append(touched, e.doc)
			}
			scores[e.doc] += idf * f * (x.k1 + 1) / (f + x.k1*(1-x.b+x.b*dl/avg))
		}
	}
	h := lexTop{k: k}
	for _, d := range touched {
		s := scores[d]
		scores[d] = 0
		id := x.docs[d].id
		if extra != nil {
			if _, want := extra[id]; want {
				extra[id] = s
			}
		}
		if len(h.items) == h.k && !h.better(s, id, h.items[0]) {
			continue
		}
		if allow != nil && !allow(id) {
			continue
		}
		h.push(LexHit{ID: id, Score: s})
	}
	x.pool.Put(sp)
	hits := h.items
	sort.Slice(hits, func(i, j int) bool { return h.better(hits[i].Score, hits[i].ID, hits[j]) })
	for i := range hits {
		hits[i].Rank = i + 1
	}
	return hits, extra, bound
}

// lexTop is a bounded min-heap of the best LexHits (score desc, id asc).
type lexTop struct {
	k     int
	items []LexHit
}

func (h *lexTop) better(s float64, id string, o LexHit) bool {
	if s != o.Score {
		return s > o.Score
	}
	return id < o.ID
}

func (h *lexTop) worse(i, j int) bool { return h.better(h.items[j].Score, h.items[j].ID, h.items[i]) }

func (h *lexTop) push(x LexHit) {
	if len(h.items) < h.k {
		h.items = append(h.items, x)
		for i := len(h.items) - 1; i > 0; {
			p := (i - 1) / 2
			if !h.worse(i, p) {
				break
			}
			h.items[i], h.items[p] = h.items[p], h.items[i]
			i = p
		}
		return
	}
	h.items[0] = x
	for i, n := 0, len(h.items); ; {
		l := 2*i + 1
		if l >= n {
			break
		}
		m := l
		if r := l + 1; r < n && h.worse(r, l) {
			m = r
		}
		if !h.worse(m, i) {
			break
		}
		h.items[i], h.items[m] = h.items[m], h.items[i]
		i = m
	}
}
