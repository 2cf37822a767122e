package index

import (
	"fmt"
	"math/rand"
	"reflect"
	"slices"
	"testing"
)

// AddRows builds the LSH AddRow one row at a time builds (the same
// buckets in the same order, the same keys), an id given twice keeping its
// last row; and the LSH it built takes removals and additions as that one
// does, without one bucket's additions showing in another's.
func TestLSHAddRowsIsAddRowOneByOne(t *testing.T) {
	for _, c := range []struct {
		dims int
		dup  bool
	}{{16, false}, {64, false}, {768, false}, {64, true}} {
		dims := c.dims
		r := rand.New(rand.NewSource(int64(dims)))
		const n = 3000
		ids := make([]string, n)
		rows := make([]int8, n*dims)
		for i := range ids {
			ids[i] = fmt.Sprintf("id%05d", i)
			for j := range dims {
				// Few distinct values, so that buckets hold several ids.
				rows[i*dims+j] = int8(r.Intn(3))
			}
		}
		if c.dup {
			ids[n-1] = ids[10] // an id given twice
		}
		one, bulk := NewLSH(dims), NewLSH(dims)
		for i, id := range ids {
			one.AddRow(id, rows[i*dims:(i+1)*dims])
		}
		bulk.AddRows(ids, rows, dims)
		same := func(when string) {
			t.Helper()
			if !reflect.DeepEqual(one.keysOf, bulk.keysOf) {
				t.Fatalf("dims %d, %s: keys differ", dims, when)
			}
			for b := range one.buckets {
				if len(one.buckets[b]) != len(bulk.buckets[b]) {
					t.Fatalf("dims %d, %s: band %d has %d buckets against %d", dims, when, b, len(bulk.buckets[b]), len(one.buckets[b]))
				}
				for k, list := range one.buckets[b] {
					if !slices.Equal(list, bulk.buckets[b][k]) {
						t.Fatalf("dims %d, %s: band %d key %d: %d ids against %d, or in another order", dims, when, b, k, len(bulk.buckets[b][k]), len(list))
					}
				}
			}
		}
		same("built")
		for i := 0; i < 400; i++ {
			id := ids[r.Intn(n)]
			one.Remove(id)
			bulk.Remove(id)
			nid := fmt.Sprintf("new%05d", i)
			row := make([]int8, dims)
			for j := range row {
				row[j] = int8(r.Intn(3))
			}
			one.AddRow(nid, row)
			bulk.AddRow(nid, row)
		}
		same("after removals and additions")
		q := make([]float32, dims)
		for j := range q {
			q[j] = float32(r.Intn(3))
		}
		if a, b := one.Candidates(q), bulk.Candidates(q); !slices.Equal(a, b) {
			t.Fatalf("dims %d: candidates differ", dims)
		}
	}
}
