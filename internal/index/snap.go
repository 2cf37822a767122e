package index

import (
	"cmp"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"math"
	"slices"
	"sync"
	"unsafe"

	"github.com/odekmem/odekmem/internal/textutil"
	"github.com/odekmem/odekmem/internal/vindex"
)

// The vector cache, second format (vectors.odm, magic ODKMVEC2): the
// indexes laid out as they live in memory, so that opening a store maps
// the file and uses it in place instead of decoding entries, filling a
// matrix and tokenising every text for BM25.
//
//	magic "ODKMVEC2", u32 header length, u32 CRC-32C of the header,
//	header JSON (fingerprint, dims, count, BM25 totals, code version, and
//	for each section its offset, length and CRC-32C), then the sections,
//	each at a multiple of 64 bytes:
//
//	ids.off      (count+1) × u32   offsets into ids
//	ids          the ids
//	texts.off    (count+1) × u64   offsets into texts
//	texts        the texts
//	rows         count × dims int8 the quantised vectors (row r is entry r)
//	facs         count × f32       1/‖row‖ (0 for a zero row)
//	df           dims × i32        rows with a nonzero value, per dimension
//	codes        count × words × u64  binary codes (vindex.CodeVersion), optional
//	norm         count × u64       textutil.NormalHash of each text, optional
//	lex.len      count × u32       BM25 document length of entry r
//	lex.terms.off (terms+1) × u32  offsets into lex.terms
//	lex.terms    the terms, in increasing order
//	lex.post.off (terms+1) × u32   postings of term t: lex.post[off[t]:off[t+1]]
//	lex.post     per term: count, then (entry gap, term frequency), uvarints
//
// Everything is little-endian. Every section's CRC is checked when the file
// is opened (CRC-32C runs at several GB/s), and every offset, term order
// and posting is checked against the counts, so a damaged or hostile file
// is rebuilt, never trusted.
const (
	snapMagic   = "ODKMVEC2"
	snapAlign   = 64
	maxSnapHead = 1 << 20
)

// castagnoli is built on first use (its SSE4.2 tables cost a process
// that never reads the cache).
var castagnoli = sync.OnceValue(func() *crc32.Table { return crc32.MakeTable(crc32.Castagnoli) })

type snapSection struct {
	Name string `json:"name"`
	Off  int64  `json:"off"`
	Len  int64  `json:"len"`
	CRC  uint32 `json:"crc"`
}

type snapHeader struct {
	Fingerprint string        `json:"fingerprint"`
	Dims        int           `json:"dims"`
	Count       int           `json:"count"`
	LexTotalLen int64         `json:"lex_total_len"`
	LexTerms    int           `json:"lex_terms"`
	CodeVersion int           `json:"code_version,omitempty"`
	Size        int64         `json:"size"` // of the whole file
	Sections    []snapSection `json:"sections"`
}

// Snapshot is a decoded ODKMVEC2 file. Its slices and strings point into
// the file's bytes (which may be a private memory mapping): the indexes
// built from it keep them.
type Snapshot struct {
	Fingerprint string
	Dims        int
	IDs         []string
	textOff     []uint64
	textBlob    []byte
	Rows        []int8
	Facs        []float32
	DF          []int32
	Codes       []uint64 // nil when absent or of another code version
	Norms       []uint64 // textutil.NormalHash of each text (nil when absent)
	Lex         vindex.LexSnapshot
	index       map[string]int // id → entry; handed to the exact index that adopts the snapshot
	lexSize     LexSize
}

// Len is the number of entries.
func (s *Snapshot) Len() int { return len(s.IDs) }

// Text is entry i's text.
func (s *Snapshot) Text(i int) string {
	a, b := s.textOff[i], s.textOff[i+1]
	if a == b {
		return ""
	}
	return unsafe.String(&s.textBlob[a], int(b-a))
}

// DocLen is entry i's BM25 length.
func (s *Snapshot) DocLen(i int) int { return int(s.Lex.DocLen[i]) }

// NormHash is entry i's textutil.NormalHash (false when the snapshot has
// none).
func (s *Snapshot) NormHash(i int) (uint64, bool) {
	if s.Norms == nil {
		return 0, false
	}
	return s.Norms[i], true
}

// Find is id's entry (false when absent).
func (s *Snapshot) Find(id string) (int, bool) {
	i, ok := s.index[id]
	return i, ok
}

// at is id's entry, looked for first at hint (false when absent).
func (s *Snapshot) at(hint int, id string) (int, bool) {
	if hint >= 0 && hint < len(s.IDs) && s.IDs[hint] == id {
		return hint, true
	}
	return s.Find(id)
}

// IsSnapshot reports whether data starts like an ODKMVEC2 file.
func IsSnapshot(data []byte) bool {
	return len(data) >= len(snapMagic) && string(data[:len(snapMagic)]) == snapMagic
}

// hostLittleEndian: sections are used in place only on little-endian
// machines; elsewhere the file is rebuilt (and read as damage).
var hostLittleEndian = func() bool {
	x := uint16(1)
	return *(*byte)(unsafe.Pointer(&x)) == 1
}()

// DecodeSnapshot checks data (an ODKMVEC2 file) and returns the snapshot
// it holds, pointing into data. validID rejects ids the store could not
// hold.
func DecodeSnapshot(data []byte, validID func(string) bool) (*Snapshot, error) {
	if !IsSnapshot(data) || len(data) < len(snapMagic)+8 {
		return nil, errors.New("not an odekmem vector cache")
	}
	if !hostLittleEndian {
		return nil, errors.New("vector cache is little-endian and this machine is not")
	}
	hl := binary.LittleEndian.Uint32(data[8:])
	hcrc := binary.LittleEndian.Uint32(data[12:])
	if hl > maxSnapHead || uint64(16+hl) > uint64(len(data)) {
		return nil, errors.New("truncated header")
	}
	head := data[16 : 16+hl]
	if crc32.Checksum(head, castagnoli()) != hcrc {
		return nil, errors.New("header checksum mismatch")
	}
	var h snapHeader
	if err := json.Unmarshal(head, &h); err != nil {
		return nil, fmt.Errorf("header: %w", err)
	}
	n, d := h.Count, h.Dims
	if h.Size != int64(len(data)) {
		return nil, fmt.Errorf("file is %d bytes, header says %d", len(data), h.Size)
	}
	if d <= 0 || d > maxCacheDims || n < 0 || int64(n) > int64(len(data)) || h.LexTerms < 0 || int64(h.LexTerms) > int64(len(data)) {
		return nil, fmt.Errorf("implausible header dims=%d count=%d terms=%d", d, n, h.LexTerms)
	}
	sec := map[string][]byte{}
	var lexBytes int64
	for _, s := range h.Sections {
		if s.Off < int64(16+hl) || s.Off%snapAlign != 0 || s.Len < 0 || s.Off > int64(len(data)) || s.Len > int64(len(data))-s.Off {
			return nil, fmt.Errorf("section %s out of bounds", s.Name)
		}
		if _, dup := sec[s.Name]; dup {
			return nil, fmt.Errorf("section %s twice", s.Name)
		}
		b := data[s.Off : s.Off+s.Len : s.Off+s.Len]
		if crc32.Checksum(b, castagnoli()) != s.CRC {
			return nil, fmt.Errorf("section %s: checksum mismatch", s.Name)
		}
		sec[s.Name] = b
		if lexSections[s.Name] {
			lexBytes += s.Len
		}
	}
	need := func(name string, size int64) ([]byte, error) {
		b, ok := sec[name]
		if !ok {
			return nil, fmt.Errorf("section %s missing", name)
		}
		if size >= 0 && int64(len(b)) != size {
			return nil, fmt.Errorf("section %s: %d bytes, want %d", name, len(b), size)
		}
		return b, nil
	}
	// Nothing outside the header and the sections: the alignment padding
	// is zeros, so that every byte of the file is checked.
	if err := checkPadding(data, int64(16+hl), h.Sections); err != nil {
		return nil, err
	}
	s := &Snapshot{Fingerprint: h.Fingerprint, Dims: d, lexSize: LexSize{Bytes: lexBytes, Terms: h.LexTotalLen}}
	var err error
	var b []byte
	// ids
	if b, err = need("ids.off", int64(n+1)*4); err != nil {
		return nil, err
	}
	idOff := cast[uint32](b)
	idBlob, err := need("ids", -1)
	if err != nil {
		return nil, err
	}
	if idOff[0] != 0 || int(idOff[n]) != len(idBlob) {
		return nil, errors.New("ids: bad offsets")
	}
	s.IDs = make([]string, n)
	s.index = make(map[string]int, n)
	for i := range n {
		a, z := idOff[i], idOff[i+1]
		if z < a || z-a > maxCacheIDLen || z == a {
			return nil, fmt.Errorf("entry %d: bad id length", i)
		}
		id := unsafe.String(&idBlob[a], int(z-a))
		if !validID(id) {
			return nil, fmt.Errorf("entry %d: invalid id", i)
		}
		if _, dup := s.index[id]; dup {
			return nil, fmt.Errorf("entry %d: duplicate id", i)
		}
		s.IDs[i] = id
		s.index[id] = i
	}
	// texts
	if b, err = need("texts.off", int64(n+1)*8); err != nil {
		return nil, err
	}
	s.textOff = cast[uint64](b)
	if s.textBlob, err = need("texts", -1); err != nil {
		return nil, err
	}
	if s.textOff[0] != 0 || s.textOff[n] != uint64(len(s.textBlob)) {
		return nil, errors.New("texts: bad offsets")
	}
	for i := range n {
		if a, z := s.textOff[i], s.textOff[i+1]; z < a || z-a > MaxCacheTextLen {
			return nil, fmt.Errorf("entry %d: bad text length", i)
		}
	}
	// vectors
	if b, err = need("rows", int64(n)*int64(d)); err != nil {
		return nil, err
	}
	s.Rows = cast[int8](b)
	if b, err = need("facs", int64(n)*4); err != nil {
		return nil, err
	}
	s.Facs = cast[float32](b)
	for i, f := range s.Facs {
		if !(f >= 0) || math.IsInf(float64(f), 0) {
			return nil, fmt.Errorf("entry %d: bad factor", i)
		}
	}
	if b, err = need("df", int64(d)*4); err != nil {
		return nil, err
	}
	s.DF = cast[int32](b)
	for _, c := range s.DF {
		if c < 0 || int(c) > n {
			return nil, errors.New("df: count out of range")
		}
	}
	if b, ok := sec["codes"]; ok && h.CodeVersion == vindex.CodeVersion {
		if len(b) != n*vindex.CodeWords(d)*8 {
			return nil, errors.New("codes: wrong size")
		}
		s.Codes = cast[uint64](b)
	}
	if b, ok := sec["norm"]; ok {
		if len(b) != n*8 {
			return nil, errors.New("norm: wrong size")
		}
		s.Norms = cast[uint64](b)
	}
	// BM25
	t := h.LexTerms
	if b, err = need("lex.len", int64(n)*4); err != nil {
		return nil, err
	}
	docLen := cast[uint32](b)
	var total int64
	for _, l := range docLen {
		total += int64(l)
	}
	if total != h.LexTotalLen {
		return nil, errors.New("lex: lengths do not add up")
	}
	if b, err = need("lex.terms.off", int64(t+1)*4); err != nil {
		return nil, err
	}
	termOff := cast[uint32](b)
	termBlob, err := need("lex.terms", -1)
	if err != nil {
		return nil, err
	}
	if termOff[0] != 0 || int(termOff[t]) != len(termBlob) {
		return nil, errors.New("lex.terms: bad offsets")
	}
	term := func(j int) string {
		a, z := termOff[j], termOff[j+1]
		return unsafe.String(unsafe.SliceData(termBlob[a:z]), int(z-a))
	}
	prev := ""
	for j := range t {
		a, z := termOff[j], termOff[j+1]
		if z <= a || int(z) > len(termBlob) {
			return nil, fmt.Errorf("lex term %d: bad offsets", j)
		}
		cur := term(j)
		if j > 0 && cur <= prev {
			return nil, fmt.Errorf("lex term %d: out of order", j)
		}
		prev = cur
	}
	if b, err = need("lex.post.off", int64(t+1)*4); err != nil {
		return nil, err
	}
	start := cast[uint32](b)
	post, err := need("lex.post", -1)
	if err != nil {
		return nil, err
	}
	if start[0] != 0 || int(start[t]) != len(post) {
		return nil, errors.New("lex.post: bad offsets")
	}
	for j := range t {
		if start[j+1] <= start[j] {
			return nil, fmt.Errorf("lex term %d: no postings", j)
		}
		if c, err := vindex.CheckPostings(post[start[j]:start[j+1]], n); err != nil || c == 0 {
			return nil, fmt.Errorf("lex term %d: %v", j, err)
		}
	}
	s.Lex = vindex.LexSnapshot{IDs: s.IDs, DocLen: docLen, NTerms: t, Terms: term, Start: start, Post: post, TotalLen: int(total)}
	return s, nil
}

// cast views b as a slice of T in place; b's start is 8-aligned (sections
// sit at multiples of 64 in a buffer from the allocator or mmap).
func cast[T any](b []byte) []T {
	var z T
	size := int(unsafe.Sizeof(z))
	if len(b) == 0 {
		return []T{}
	}
	return unsafe.Slice((*T)(unsafe.Pointer(unsafe.SliceData(b))), len(b)/size)
}

// SnapshotSource is what EncodeSnapshot lays out: the vector index's rows
// (entry r is row r) and the texts and lexical index of the same ids.
type SnapshotSource struct {
	Fingerprint string
	Dims        int
	IDs         []string
	Text        func(i int) string
	Rows        []int8
	Facs        []float32
	DF          []int32 // nil: counted here
	Codes       []uint64
	Lex         *vindex.BM25
}

// EncodeSnapshot lays src out as an ODKMVEC2 file.
func EncodeSnapshot(src SnapshotSource) ([]byte, error) {
	n, d := len(src.IDs), src.Dims
	if len(src.Rows) != n*d || len(src.Facs) != n {
		return nil, fmt.Errorf("snapshot: %d ids, %d values, %d factors for %d dimensions", n, len(src.Rows), len(src.Facs), d)
	}
	le := binary.LittleEndian
	type part struct {
		name string
		data []byte
	}
	var parts []part
	add := func(name string, data []byte) { parts = append(parts, part{name, data}) }

	idOff := make([]byte, 0, (n+1)*4)
	var idBlob []byte
	textOff := make([]byte, 0, (n+1)*8)
	var textLen int
	for i := range n {
		textLen += len(src.Text(i))
	}
	textBlob := make([]byte, 0, textLen)
	idOff = le.AppendUint32(idOff, 0)
	textOff = le.AppendUint64(textOff, 0)
	for i, id := range src.IDs {
		idBlob = append(idBlob, id...)
		idOff = le.AppendUint32(idOff, uint32(len(idBlob)))
		textBlob = append(textBlob, src.Text(i)...)
		textOff = le.AppendUint64(textOff, uint64(len(textBlob)))
	}
	add("ids.off", idOff)
	add("ids", idBlob)
	add("texts.off", textOff)
	add("texts", textBlob)
	add("rows", unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(src.Rows))), len(src.Rows)))
	facs := make([]byte, 0, 4*n)
	for _, f := range src.Facs {
		facs = le.AppendUint32(facs, math.Float32bits(f))
	}
	add("facs", facs)
	df := src.DF
	if df == nil {
		df = make([]int32, d)
		for r := range n {
			for j, x := range src.Rows[r*d : (r+1)*d] {
				if x != 0 {
					df[j]++
				}
			}
		}
	}
	dfb := make([]byte, 0, 4*d)
	for _, c := range df {
		dfb = le.AppendUint32(dfb, uint32(c))
	}
	add("df", dfb)
	codeVersion := 0
	if len(src.Codes) == n*vindex.CodeWords(d) && n > 0 {
		cb := make([]byte, 0, 8*len(src.Codes))
		for _, c := range src.Codes {
			cb = le.AppendUint64(cb, c)
		}
		add("codes", cb)
		codeVersion = vindex.CodeVersion
	}
	norms := make([]byte, 0, 8*n)
	for i := range n {
		norms = le.AppendUint64(norms, textutil.NormalHash(src.Text(i)))
	}
	add("norm", norms)
	lexLen := make([]byte, 4*n)
	var termOff, termBlob, postOff, post []byte
	termOff = le.AppendUint32(termOff, 0)
	postOff = le.AppendUint32(postOff, 0)
	terms := 0
	total, ok := src.Lex.Export(src.IDs, func(i int, l uint32) { le.PutUint32(lexLen[4*i:], l) }, func(t string, ps []vindex.LexPosting) {
		termBlob = append(termBlob, t...)
		termOff = le.AppendUint32(termOff, uint32(len(termBlob)))
		post = vindex.AppendPostings(post, ps)
		postOff = le.AppendUint32(postOff, uint32(len(post)))
		terms++
	})
	if !ok {
		return nil, errors.New("snapshot: the lexical index does not hold the vector index's ids")
	}
	add("lex.len", lexLen)
	add("lex.terms.off", termOff)
	add("lex.terms", termBlob)
	add("lex.post.off", postOff)
	add("lex.post", post)

	h := snapHeader{Fingerprint: src.Fingerprint, Dims: d, Count: n, LexTotalLen: int64(total), LexTerms: terms, CodeVersion: codeVersion}
	// The header holds the offsets, which depend on its length: lay it
	// out with room to spare, then fix the offsets.
	h.Sections = make([]snapSection, len(parts))
	for i, p := range parts {
		h.Sections[i] = snapSection{Name: p.name, Off: math.MaxInt32 * 16, Len: int64(len(p.data)), CRC: crc32.Checksum(p.data, castagnoli())}
	}
	h.Size = math.MaxInt32 * 16
	probe, _ := json.Marshal(h)
	off := alignUp(int64(16 + len(probe)))
	for i, p := range parts {
		h.Sections[i].Off = off
		off = alignUp(off + int64(len(p.data)))
	}
	h.Size = off
	head, _ := json.Marshal(h)
	if len(head) > len(probe) || len(head) > maxSnapHead {
		return nil, errors.New("snapshot: header grew")
	}
	out := make([]byte, off)
	copy(out, snapMagic)
	le.PutUint32(out[8:], uint32(len(head)))
	le.PutUint32(out[12:], crc32.Checksum(head, castagnoli()))
	copy(out[16:], head)
	for i, p := range parts {
		copy(out[h.Sections[i].Off:], p.data)
	}
	return out, nil
}

func alignUp(n int64) int64 { return (n + snapAlign - 1) / snapAlign * snapAlign }

// entries is the snapshot as first-format cache entries, for a load that
// cannot adopt it: the texts always, the vectors when fingerprint and
// width (0: any) match.
func (s *Snapshot) entries(fp string, dims int) map[string]CacheEntry {
	out := make(map[string]CacheEntry, s.Len())
	useVec := s.Fingerprint == fp && (dims == 0 || dims == s.Dims)
	for i, id := range s.IDs {
		e := CacheEntry{Text: s.Text(i)}
		if useVec {
			raw := make([]byte, 4+s.Dims)
			if s.Facs[i] > 0 {
				binary.LittleEndian.PutUint32(raw, math.Float32bits(1))
			}
			for j, x := range s.Rows[i*s.Dims : (i+1)*s.Dims] {
				raw[4+j] = byte(x)
			}
			e.Raw = raw
		}
		out[id] = e
	}
	return out
}

// lexSections are the sections of the lexical index.
var lexSections = map[string]bool{"lex.terms.off": true, "lex.terms": true, "lex.post.off": true, "lex.post": true}

// LexSize is the size of a snapshot's lexical sections and its total
// BM25 length (the sum of its documents' lengths), for the store's size
// estimate: bytes per term of length.
type LexSize struct{ Bytes, Terms int64 }

// SnapshotLexSize is LexSize of an ODKMVEC2 file (zero for anything else).
func SnapshotLexSize(data []byte) LexSize {
	if !IsSnapshot(data) || len(data) < 16 {
		return LexSize{}
	}
	hl := binary.LittleEndian.Uint32(data[8:])
	if hl > maxSnapHead || uint64(16+hl) > uint64(len(data)) {
		return LexSize{}
	}
	var h snapHeader
	if json.Unmarshal(data[16:16+hl], &h) != nil {
		return LexSize{}
	}
	l := LexSize{Terms: h.LexTotalLen}
	for _, s := range h.Sections {
		if lexSections[s.Name] {
			l.Bytes += s.Len
		}
	}
	return l
}

// checkPadding checks that the bytes of data outside [0, headEnd) and the
// sections are zero.
func checkPadding(data []byte, headEnd int64, secs []snapSection) error {
	sorted := slices.Clone(secs)
	slices.SortFunc(sorted, func(a, b snapSection) int { return cmp.Compare(a.Off, b.Off) })
	pos := headEnd
	zero := func(from, to int64) error {
		if to < from {
			return errors.New("sections overlap")
		}
		for _, b := range data[from:to] {
			if b != 0 {
				return errors.New("data outside the sections")
			}
		}
		return nil
	}
	for _, sec := range sorted {
		if err := zero(pos, sec.Off); err != nil {
			return err
		}
		pos = sec.Off + sec.Len
	}
	return zero(pos, int64(len(data)))
}
