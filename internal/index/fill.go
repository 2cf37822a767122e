package index

import (
	"encoding/binary"
	"math"

	"github.com/odekmem/odekmem/internal/par"
	"github.com/odekmem/odekmem/internal/vindex"
)

// Item is one cached vector to load: an atom id, its text and its vector
// as the cache stores it.
type Item struct {
	ID, Text string
	Raw      []byte // f32 scale + dims × int8, as the cache stores it
}

// Fill adds cached items to a vector and a lexical index with their
// bulk-load paths, filling both at once (each is safe for concurrent use):
// an exact index takes the cache's int8 rows as they are, BM25 tokenises
// across the cores. It reports which items the vector index took.
func Fill(idx vindex.Index, lex *vindex.BM25, items []Item) []bool {
	return FillN(idx, lex, items, 0)
}

// FillN is Fill tokenising on at most workers goroutines
// (0 = GOMAXPROCS).
func FillN(idx vindex.Index, lex *vindex.BM25, items []Item, workers int) []bool {
	ids := make([]string, len(items))
	texts := make([]string, len(items))
	for i, it := range items {
		ids[i], texts[i] = it.ID, it.Text
	}
	ok := make([]bool, len(items))
	vectors := func() {
		if ex, isExact := idx.(*vindex.Exact); isExact {
			d := ex.Dims()
			rows := make([]int8, len(items)*d)
			for i, it := range items {
				row := rows[i*d : (i+1)*d]
				if len(it.Raw) != 4+d || RawScale(it.Raw) == 0 {
					continue // a zero vector: the row stays zero
				}
				for j, b := range it.Raw[4:] {
					row[j] = int8(b)
				}
			}
			if ex.AddQuantized(ids, rows) == nil {
				for i := range ok {
					ok[i] = true
				}
			}
			return
		}
		for i, it := range items {
			ok[i] = idx.Add(it.ID, RawVector(it.Raw)) == nil
		}
	}
	par.Do(vectors, func() { lex.AddManyN(ids, texts, workers) })
	return ok
}

// RawScale is the scale of a cached vector (f32 scale, dims × int8).
func RawScale(raw []byte) float32 {
	return math.Float32frombits(binary.LittleEndian.Uint32(raw))
}

// RawVector dequantises a cached vector (f32 scale, dims × int8).
func RawVector(raw []byte) []float32 {
	q := make([]int8, len(raw)-4)
	for i, b := range raw[4:] {
		q[i] = int8(b)
	}
	return Dequantize(q, RawScale(raw))
}
