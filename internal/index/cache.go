package index

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"math"
)

// The derived vector cache (vectors.odm): odekmem's own metadata (the
// embedder fingerprint and width in its header), ids, texts and int8
// quantised vectors. It is only a cache: anything missing or damaged is
// rebuilt from the chunk files.
const (
	cacheMagic    = "ODKMVEC1"
	maxCacheIDLen = 256
	// MaxCacheTextLen bounds one text in the cache.
	MaxCacheTextLen = 1 << 20
	maxCacheDims    = 1 << 16
)

// CacheEntry is one decoded cache entry. Raw is the vector exactly as the
// cache stores it (f32 scale, dims × int8; see EncodeQuantized), nil when
// the vector cannot be used (another embedder, or a scale that Quantize
// never writes).
type CacheEntry struct {
	Text string
	Raw  []byte
}

// Dims is the width of the entry's vector (0 when it has none).
func (c CacheEntry) Dims() int { return max(len(c.Raw)-4, 0) }

// RoundTrip returns vec as the cache will give it back: int8 with a
// per-vector scale, renormalised.
func RoundTrip(vec []float32) []float32 {
	q, scale := Quantize(vec)
	return Dequantize(q, scale)
}

// Quantize is vec as int8s with one scale (max |x| / 127).
func Quantize(vec []float32) ([]int8, float32) {
	var maxAbs float32
	for _, x := range vec {
		if a := float32(math.Abs(float64(x))); a > maxAbs {
			maxAbs = a
		}
	}
	q := make([]int8, len(vec))
	if maxAbs == 0 {
		return q, 0
	}
	scale := maxAbs / 127
	for i, x := range vec {
		q[i] = int8(math.Round(float64(x / scale)))
	}
	return q, scale
}

// Dequantize is the renormalised vector of q and scale.
func Dequantize(q []int8, scale float32) []float32 {
	out := make([]float32, len(q))
	var norm float64
	for i, x := range q {
		out[i] = float32(x) * scale
		norm += float64(out[i]) * float64(out[i])
	}
	if norm > 0 {
		inv := float32(1 / math.Sqrt(norm))
		for i := range out {
			out[i] *= inv
		}
	}
	return out
}

// Cache layout: magic, u32 header length, header JSON {fingerprint, dims,
// count}, then per entry: u16 id length, id, u32 text length, text, f32
// scale, dims × int8; then an FNV-1a 64 checksum of everything before it.
// EncodeCache writes a cache file of the given entries to w.
func EncodeCache(w *bytes.Buffer, fp string, dims int, ids []string, texts map[string]string, quantized func(id string) []byte) {
	w.WriteString(cacheMagic)
	hdr, _ := json.Marshal(map[string]any{"fingerprint": fp, "dims": dims, "count": len(ids)})
	binary.Write(w, binary.LittleEndian, uint32(len(hdr)))
	w.Write(hdr)
	var b4 [4]byte
	for _, id := range ids {
		binary.LittleEndian.PutUint16(b4[:2], uint16(len(id)))
		w.Write(b4[:2])
		w.WriteString(id)
		t := texts[id]
		binary.LittleEndian.PutUint32(b4[:], uint32(len(t)))
		w.Write(b4[:])
		w.WriteString(t)
		w.Write(quantized(id)) // f32 scale, dims × int8
	}
	h := fnv.New64a()
	h.Write(w.Bytes())
	binary.Write(w, binary.LittleEndian, h.Sum64())
}

// EncodeQuantized is a vector as the cache stores it: f32 scale then int8s.
func EncodeQuantized(vec []float32) []byte {
	q, scale := Quantize(vec)
	out := make([]byte, 4+len(q))
	binary.LittleEndian.PutUint32(out, math.Float32bits(scale))
	for i, x := range q {
		out[4+i] = byte(x)
	}
	return out
}

// DecodeCache reads a cache file: the embedder fingerprint and the entries
// by id. validID rejects ids the store could not hold; any damage is an
// error (the cache is rebuilt).
func DecodeCache(data []byte, validID func(string) bool) (string, map[string]CacheEntry, error) {
	if len(data) < len(cacheMagic)+4+8 || string(data[:len(cacheMagic)]) != cacheMagic {
		return "", nil, errors.New("not an odekmem vector cache")
	}
	body, sum := data[:len(data)-8], binary.LittleEndian.Uint64(data[len(data)-8:])
	h := fnv.New64a()
	h.Write(body)
	if h.Sum64() != sum {
		return "", nil, errors.New("checksum mismatch")
	}
	p := body[len(cacheMagic):]
	hl := binary.LittleEndian.Uint32(p)
	p = p[4:]
	if uint64(hl) > uint64(len(p)) {
		return "", nil, errors.New("truncated header")
	}
	var hdr struct {
		Fingerprint string `json:"fingerprint"`
		Dims        int    `json:"dims"`
		Count       int    `json:"count"`
	}
	if err := json.Unmarshal(p[:hl], &hdr); err != nil {
		return "", nil, fmt.Errorf("header: %w", err)
	}
	p = p[hl:]
	if hdr.Dims <= 0 || hdr.Dims > maxCacheDims || hdr.Count < 0 || hdr.Count > len(body)/(hdr.Dims+10) {
		return "", nil, fmt.Errorf("implausible header dims=%d count=%d", hdr.Dims, hdr.Count)
	}
	out := make(map[string]CacheEntry, hdr.Count)
	// All vectors go into one slab, so the file's bytes can be dropped.
	vw := 4 + hdr.Dims
	slab := make([]byte, hdr.Count*vw)
	for i := 0; i < hdr.Count; i++ {
		if len(p) < 2 {
			return "", nil, fmt.Errorf("entry %d: truncated", i)
		}
		idLen := int(binary.LittleEndian.Uint16(p))
		p = p[2:]
		if idLen == 0 || idLen > maxCacheIDLen {
			return "", nil, fmt.Errorf("entry %d: bad id length", i)
		}
		if len(p) < idLen {
			return "", nil, fmt.Errorf("entry %d: truncated id", i)
		}
		id := string(p[:idLen])
		p = p[idLen:]
		if len(p) < 4 {
			return "", nil, fmt.Errorf("entry %d: truncated", i)
		}
		tl := int(binary.LittleEndian.Uint32(p))
		p = p[4:]
		if tl > MaxCacheTextLen || tl > len(body) {
			return "", nil, fmt.Errorf("entry %d: bad text length", i)
		}
		if len(p) < tl {
			return "", nil, fmt.Errorf("entry %d: truncated text", i)
		}
		text := string(p[:tl])
		p = p[tl:]
		if len(p) < 4 {
			return "", nil, fmt.Errorf("entry %d: truncated scale", i)
		}
		if len(p) < vw {
			return "", nil, fmt.Errorf("entry %d: truncated vector", i)
		}
		raw := slab[i*vw : (i+1)*vw : (i+1)*vw]
		copy(raw, p[:vw])
		p = p[vw:]
		if !validID(id) {
			return "", nil, fmt.Errorf("entry %d: invalid id", i)
		}
		if sc := RawScale(raw); sc < 0 || math.IsNaN(float64(sc)) || math.IsInf(float64(sc), 0) {
			raw = nil // not what Quantize writes: re-embed
		}
		out[id] = CacheEntry{Text: text, Raw: raw}
	}
	return hdr.Fingerprint, out, nil
}
