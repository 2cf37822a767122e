package vindex

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"hash/fnv"
	"io"
	"math"
	"slices"
	"strconv"
)

// Cache is the derived vector cache of a store: every live atom's id, text
// and vector under one embedder fingerprint. vectors_meta.json (FORMATS.md)
// says whether it is current; opening a store reads this file instead of
// one chunk file per atom, and rebuilds both the vector and the BM25 index
// from it.
//
// Encoding (all integers little-endian):
//
//	magic    8 bytes "ODKMVEC\x00"
//	version  uint32 (CacheVersion)
//	dims     uint32
//	count    uint32
//	fp       uvarint length + bytes (embedder fingerprint)
//	count × (id: uvarint length + bytes, text: uvarint length + bytes)
//	count × dims float32 (row-major)
//	crc32    uint32, Castagnoli, over everything before it
type Cache struct {
	Fingerprint string
	Dims        int
	IDs         []string
	Texts       []string  // same length as IDs ("" when unknown)
	Vectors     []float32 // len(IDs)*Dims, row-major
}

// CacheVersion is the encoding version written by WriteTo.
const CacheVersion = 1

var cacheMagic = [8]byte{'O', 'D', 'K', 'M', 'V', 'E', 'C', 0}

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// Limits on decoded fields (a hostile file cannot make the decoder allocate
// more than the file's own size, and these bound the rest).
const (
	maxCacheDims  = 1 << 16
	maxCacheField = 1 << 24 // one id, text or fingerprint
)

// Snapshot copies the index into a Cache. text (nil = none) supplies each
// atom's text.
func (e *Exact) Snapshot(fingerprint string, text func(id string) string) *Cache {
	e.mu.RLock()
	c := &Cache{Fingerprint: fingerprint, Dims: e.dims, IDs: slices.Clone(e.ids), Vectors: make([]float32, 0, len(e.data))}
	for r := range e.ids {
		c.Vectors = e.rowVector(c.Vectors, r)
	}
	e.mu.RUnlock()
	c.Texts = make([]string, len(c.IDs))
	if text != nil {
		for i, id := range c.IDs {
			c.Texts[i] = text(id)
		}
	}
	return c
}

// WriteTo writes the index as a Cache with no fingerprint and no texts;
// use Snapshot to include them.
func (e *Exact) WriteTo(w io.Writer) (int64, error) {
	return e.Snapshot("", nil).WriteTo(w)
}

// WriteTo encodes c (io.WriterTo).
func (c *Cache) WriteTo(w io.Writer) (int64, error) {
	if c.Dims <= 0 || c.Dims > maxCacheDims {
		return 0, fmt.Errorf("vindex: cache dimension %d out of range", c.Dims)
	}
	if len(c.Vectors) != len(c.IDs)*c.Dims {
		return 0, fmt.Errorf("vindex: cache has %d ids but %d floats for %d dimensions", len(c.IDs), len(c.Vectors), c.Dims)
	}
	if len(c.Texts) != 0 && len(c.Texts) != len(c.IDs) {
		return 0, fmt.Errorf("vindex: cache has %d ids but %d texts", len(c.IDs), len(c.Texts))
	}
	if len(c.IDs) > math.MaxUint32 {
		return 0, errors.New("vindex: cache too large")
	}
	cw := &countWriter{w: w}
	crc := crc32.New(castagnoli)
	bw := bufio.NewWriterSize(io.MultiWriter(cw, crc), 1<<16)
	var hdr [20]byte
	copy(hdr[:8], cacheMagic[:])
	binary.LittleEndian.PutUint32(hdr[8:], CacheVersion)
	binary.LittleEndian.PutUint32(hdr[12:], uint32(c.Dims))
	binary.LittleEndian.PutUint32(hdr[16:], uint32(len(c.IDs)))
	bw.Write(hdr[:])
	putString := func(s string) error {
		if len(s) > maxCacheField {
			return fmt.Errorf("vindex: cache field of %d bytes exceeds %d", len(s), maxCacheField)
		}
		var b [binary.MaxVarintLen64]byte
		bw.Write(b[:binary.PutUvarint(b[:], uint64(len(s)))])
		bw.WriteString(s)
		return nil
	}
	if err := putString(c.Fingerprint); err != nil {
		return cw.n, err
	}
	for i, id := range c.IDs {
		text := ""
		if len(c.Texts) != 0 {
			text = c.Texts[i]
		}
		if err := putString(id); err != nil {
			return cw.n, err
		}
		if err := putString(text); err != nil {
			return cw.n, err
		}
	}
	var fb [4]byte
	for _, x := range c.Vectors {
		binary.LittleEndian.PutUint32(fb[:], math.Float32bits(x))
		bw.Write(fb[:])
	}
	if err := bw.Flush(); err != nil {
		return cw.n, err
	}
	binary.LittleEndian.PutUint32(fb[:], crc.Sum32())
	_, err := cw.Write(fb[:])
	return cw.n, err
}

type countWriter struct {
	w io.Writer
	n int64
}

func (c *countWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

// ErrNotCache is returned (wrapped) for input that is not a vector cache.
var ErrNotCache = errors.New("not an odekmem vector cache")

// ReadCache decodes a cache written by WriteTo. Truncated, corrupted or
// foreign input is an error, never a panic; no allocation exceeds the
// input's own size.
func ReadCache(r io.Reader) (*Cache, error) {
	b, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("vindex: reading vector cache: %w", err)
	}
	return DecodeCache(b)
}

// DecodeCache is ReadCache over a byte slice.
func DecodeCache(b []byte) (*Cache, error) {
	if len(b) < 8 || [8]byte(b[:8]) != cacheMagic {
		return nil, fmt.Errorf("vindex: %w (bad magic)", ErrNotCache)
	}
	if len(b) < 24 {
		return nil, errors.New("vindex: vector cache truncated (header)")
	}
	body, sum := b[:len(b)-4], binary.LittleEndian.Uint32(b[len(b)-4:])
	if v := binary.LittleEndian.Uint32(b[8:]); v != CacheVersion {
		return nil, fmt.Errorf("vindex: vector cache version %d, this build reads %d", v, CacheVersion)
	}
	if got := crc32.Checksum(body, castagnoli); got != sum {
		return nil, fmt.Errorf("vindex: vector cache checksum mismatch (corrupted or truncated): %08x != %08x", got, sum)
	}
	dims := int(binary.LittleEndian.Uint32(b[12:]))
	count := int(binary.LittleEndian.Uint32(b[16:]))
	if dims <= 0 || dims > maxCacheDims {
		return nil, fmt.Errorf("vindex: vector cache dimension %d out of range", dims)
	}
	p := body[20:]
	// Each entry needs at least two length bytes and dims*4 vector bytes.
	if uint64(count)*(2+4*uint64(dims)) > uint64(len(p)) {
		return nil, fmt.Errorf("vindex: vector cache truncated: %d entries of %d dimensions do not fit in %d bytes", count, dims, len(p))
	}
	getString := func(what string) (string, error) {
		n, k := binary.Uvarint(p)
		if k <= 0 {
			return "", fmt.Errorf("vindex: vector cache: bad %s length", what)
		}
		if n > maxCacheField || n > uint64(len(p)-k) {
			return "", fmt.Errorf("vindex: vector cache: %s length %d exceeds the remaining %d bytes", what, n, len(p)-k)
		}
		s := string(p[k : k+int(n)])
		p = p[k+int(n):]
		return s, nil
	}
	c := &Cache{Dims: dims}
	fp, err := getString("fingerprint")
	if err != nil {
		return nil, err
	}
	c.Fingerprint = fp
	c.IDs = make([]string, count)
	c.Texts = make([]string, count)
	seen := make(map[string]struct{}, count)
	for i := 0; i < count; i++ {
		id, err := getString("id")
		if err != nil {
			return nil, err
		}
		if _, dup := seen[id]; dup {
			return nil, fmt.Errorf("vindex: vector cache: duplicate id %s", quoteID(id))
		}
		seen[id] = struct{}{}
		text, err := getString("text")
		if err != nil {
			return nil, err
		}
		c.IDs[i], c.Texts[i] = id, text
	}
	if len(p) != count*dims*4 {
		return nil, fmt.Errorf("vindex: vector cache: %d bytes of vectors, want %d", len(p), count*dims*4)
	}
	c.Vectors = make([]float32, count*dims)
	for i := range c.Vectors {
		x := math.Float32frombits(binary.LittleEndian.Uint32(p[4*i:]))
		if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
			return nil, fmt.Errorf("vindex: vector cache: non-finite value in the vector of %s", quoteID(c.IDs[i/dims]))
		}
		c.Vectors[i] = x
	}
	return c, nil
}

// Exact builds an exact index from the cache (vectors are taken as
// stored: they were normalised when first added).
func (c *Cache) Exact(opts Options) (*Exact, error) {
	if len(c.Vectors) != len(c.IDs)*c.Dims || c.Dims <= 0 {
		return nil, fmt.Errorf("vindex: cache has %d ids but %d floats for %d dimensions", len(c.IDs), len(c.Vectors), c.Dims)
	}
	seen := make(map[string]bool, len(c.IDs))
	vecs := make([][]float32, len(c.IDs))
	for i, id := range c.IDs {
		if seen[id] {
			return nil, fmt.Errorf("vindex: cache: duplicate id %s", quoteID(id))
		}
		seen[id] = true
		vecs[i] = c.Vectors[i*c.Dims : (i+1)*c.Dims]
	}
	e := NewExact(c.Dims, opts)
	if err := e.AddMany(c.IDs, vecs); err != nil {
		return nil, err
	}
	return e, nil
}

// BM25 builds the lexical index from the cached texts.
func (c *Cache) BM25() *BM25 {
	x := NewBM25()
	for i, id := range c.IDs {
		if i < len(c.Texts) && c.Texts[i] != "" {
			x.Add(id, c.Texts[i])
		}
	}
	return x
}

// CorpusHash is the corpus field of vectors_meta.json (FORMATS.md):
// "<count>:<16 lowercase hex>", the hash being FNV-1a 64 over the sorted
// ids, each followed by a NUL byte.
func CorpusHash(ids []string) string {
	s := slices.Clone(ids)
	slices.Sort(s)
	h := fnv.New64a()
	for _, id := range s {
		io.WriteString(h, id)
		h.Write([]byte{0})
	}
	return strconv.Itoa(len(ids)) + ":" + fmt.Sprintf("%016x", h.Sum64())
}
