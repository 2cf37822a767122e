package textclf

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"math"
	"sync"
)

// formatVersion is the version of the serialised form written by
// MarshalBinary. Load accepts only this version.
const formatVersion = 1

// magic opens every serialised model.
const magic = "TCLF"

// Limits on the variable parts of a serialised model, so that a corrupt
// file cannot ask Load for much memory.
const (
	maxNote      = 4096
	maxDense     = 1024
	maxDenseName = 256
)

// Encodings of the hashed weights.
const (
	encDense  = 0 // one int8 per bucket
	encSparse = 1 // count, then (uvarint gap, int8) per non-zero bucket
)

// ErrFormat is returned (wrapped) by Load for bytes that are not a valid
// serialised model.
var ErrFormat = errors.New("textclf: invalid model file")

// quantize rounds the hashed weights to multiples of scale = max|w|/127,
// so that an in-memory model scores exactly as its serialised form will,
// and returns the scale.
func (m *Model) quantize() float32 {
	nb := m.cfg.Buckets()
	var mx float32
	for _, w := range m.w[:nb] {
		mx = max(mx, float32(math.Abs(float64(w))))
	}
	if mx == 0 {
		m.scale = 0
		return 0
	}
	scale := mx / 127
	for i, w := range m.w[:nb] {
		m.w[i] = float32(quant(w, scale)) * scale
	}
	m.scale = scale
	return scale
}

// quant is w/scale rounded to the nearest int8.
func quant(w, scale float32) int8 {
	if scale == 0 {
		return 0
	}
	q := math.Round(float64(w / scale))
	return int8(max(-127, min(127, q)))
}

// MarshalBinary returns the model's serialised form (see the package
// documentation). The same model always gives the same bytes.
func (m *Model) MarshalBinary() ([]byte, error) {
	if len(m.note) > maxNote || len(m.dense) > maxDense {
		return nil, fmt.Errorf("textclf: note or dense feature list too long to serialise")
	}
	nb := m.cfg.Buckets()
	scale := m.scale
	b := []byte(magic)
	b = binary.LittleEndian.AppendUint16(b, formatVersion)
	var flags byte
	if m.cfg.NoWordBigrams {
		flags |= 1
	}
	if m.cfg.NoCharGrams {
		flags |= 2
	}
	b = append(b, byte(m.cfg.Bits), flags, byte(m.cfg.CharMin), byte(m.cfg.CharMax))
	b = binary.LittleEndian.AppendUint64(b, math.Float64bits(m.threshold))
	b = binary.LittleEndian.AppendUint32(b, math.Float32bits(m.bias))
	b = binary.LittleEndian.AppendUint32(b, math.Float32bits(scale))
	b = append(b, m.dataHash[:]...)
	b = binary.AppendUvarint(b, uint64(len(m.note)))
	b = append(b, m.note...)
	b = binary.AppendUvarint(b, uint64(len(m.dense)))
	for j, name := range m.dense {
		if len(name) > maxDenseName {
			return nil, fmt.Errorf("textclf: dense feature name %q too long", name)
		}
		b = binary.AppendUvarint(b, uint64(len(name)))
		b = append(b, name...)
		b = binary.LittleEndian.AppendUint32(b, math.Float32bits(m.w[nb+j]))
	}
	q := make([]int8, nb)
	nz := 0
	for i, w := range m.w[:nb] {
		q[i] = quant(w, scale)
		if q[i] != 0 {
			nz++
		}
	}
	// Sparse costs about 2-4 bytes per non-zero weight; dense one per bucket.
	if nz*3 < nb {
		b = append(b, encSparse)
		b = binary.AppendUvarint(b, uint64(nz))
		prev := -1
		for i, v := range q {
			if v == 0 {
				continue
			}
			b = binary.AppendUvarint(b, uint64(i-prev-1))
			b = append(b, byte(v))
			prev = i
		}
	} else {
		b = append(b, encDense)
		for _, v := range q {
			b = append(b, byte(v))
		}
	}
	return binary.LittleEndian.AppendUint32(b, crc32.ChecksumIEEE(b)), nil
}

// reader walks a serialised model, remembering the first error.
type reader struct {
	b   []byte
	err error
}

func (r *reader) fail(what string) {
	if r.err == nil {
		r.err = fmt.Errorf("%w: %s", ErrFormat, what)
	}
	r.b = nil
}

func (r *reader) bytes(n int, what string) []byte {
	if r.err != nil || n < 0 || len(r.b) < n {
		r.fail("truncated " + what)
		return nil
	}
	out := r.b[:n]
	r.b = r.b[n:]
	return out
}

func (r *reader) u8(what string) byte {
	if b := r.bytes(1, what); b != nil {
		return b[0]
	}
	return 0
}

func (r *reader) u16(what string) uint16 {
	if b := r.bytes(2, what); b != nil {
		return binary.LittleEndian.Uint16(b)
	}
	return 0
}

func (r *reader) u32(what string) uint32 {
	if b := r.bytes(4, what); b != nil {
		return binary.LittleEndian.Uint32(b)
	}
	return 0
}

func (r *reader) uvarint(what string, limit uint64) int {
	if r.err != nil {
		return 0
	}
	v, n := binary.Uvarint(r.b)
	if n <= 0 {
		r.fail("bad varint in " + what)
		return 0
	}
	if v > limit {
		r.fail(what + " out of range")
		return 0
	}
	r.b = r.b[n:]
	return int(v)
}

func finite32(f float32) bool { return !math.IsNaN(float64(f)) && !math.IsInf(float64(f), 0) }

// Load parses a serialised model, checking its magic, version, checksum,
// every length and every value. Errors wrap [ErrFormat]. A model takes
// 4·(2^Bits + dense) bytes of memory (1 MiB at the default 18 bits, at most
// 64 MiB), whatever the size of the file.
func Load(data []byte) (*Model, error) {
	if len(data) < len(magic)+4 {
		return nil, fmt.Errorf("%w: %d bytes is too short", ErrFormat, len(data))
	}
	body, sum := data[:len(data)-4], binary.LittleEndian.Uint32(data[len(data)-4:])
	if string(body[:len(magic)]) != magic {
		return nil, fmt.Errorf("%w: bad magic", ErrFormat)
	}
	if crc32.ChecksumIEEE(body) != sum {
		return nil, fmt.Errorf("%w: checksum mismatch", ErrFormat)
	}
	r := &reader{b: body[len(magic):]}
	if v := r.u16("version"); r.err == nil && v != formatVersion {
		return nil, fmt.Errorf("%w: version %d, this build reads version %d", ErrFormat, v, formatVersion)
	}
	m := &Model{}
	m.cfg.Bits = int(r.u8("bits"))
	flags := r.u8("flags")
	m.cfg.NoWordBigrams = flags&1 != 0
	m.cfg.NoCharGrams = flags&2 != 0
	m.cfg.CharMin = int(r.u8("char min"))
	m.cfg.CharMax = int(r.u8("char max"))
	if r.err != nil {
		return nil, r.err
	}
	if flags&^3 != 0 {
		return nil, fmt.Errorf("%w: unknown flags %#x", ErrFormat, flags)
	}
	if err := m.cfg.validate(); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrFormat, err)
	}
	thr := r.bytes(8, "threshold")
	if thr != nil {
		m.threshold = math.Float64frombits(binary.LittleEndian.Uint64(thr))
	}
	m.bias = math.Float32frombits(r.u32("bias"))
	scale := math.Float32frombits(r.u32("scale"))
	m.scale = scale
	copy(m.dataHash[:], r.bytes(32, "data hash"))
	m.note = string(r.bytes(r.uvarint("note length", maxNote), "note"))
	nd := r.uvarint("dense count", maxDense)
	if r.err != nil {
		return nil, r.err
	}
	if !(m.threshold >= 0 && m.threshold <= 1) || !finite32(m.bias) || !finite32(scale) || scale < 0 {
		return nil, fmt.Errorf("%w: threshold, bias or scale out of range", ErrFormat)
	}
	nb := m.cfg.Buckets()
	m.w = make([]float32, nb+nd)
	m.dense = make([]string, nd)
	for j := range nd {
		m.dense[j] = string(r.bytes(r.uvarint("dense name length", maxDenseName), "dense name"))
		w := math.Float32frombits(r.u32("dense weight"))
		if r.err == nil && !finite32(w) {
			r.fail("dense weight not finite")
		}
		m.w[nb+j] = w
	}
	switch enc := r.u8("encoding"); {
	case r.err != nil:
	case enc == encDense:
		q := r.bytes(nb, "weights")
		for i := range q {
			m.w[i] = float32(int8(q[i])) * scale
		}
	case enc == encSparse:
		nz := r.uvarint("non-zero count", uint64(nb))
		i := -1
		for range nz {
			i += 1 + r.uvarint("gap", uint64(nb))
			v := int8(r.u8("weight"))
			if r.err != nil {
				break
			}
			if i >= nb {
				r.fail("weight index out of range")
				break
			}
			m.w[i] = float32(v) * scale
		}
	default:
		r.fail(fmt.Sprintf("unknown weight encoding %d", enc))
	}
	if r.err != nil {
		return nil, r.err
	}
	if len(r.b) != 0 {
		return nil, fmt.Errorf("%w: %d trailing bytes", ErrFormat, len(r.b))
	}
	return m, nil
}

// LoadOnce returns a function that parses data with [Load] on its first
// call and returns the same model (or error) on every call. Use it with a
// go:embed variable so that nothing is parsed at package init:
//
//	//go:embed model.bin
//	var modelBytes []byte
//	var model = textclf.LoadOnce(modelBytes)
func LoadOnce(data []byte) func() (*Model, error) {
	return sync.OnceValues(func() (*Model, error) { return Load(data) })
}
