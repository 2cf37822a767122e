package vindex

import (
	"fmt"
	"math/rand"
	"testing"
)

// NewExactFrom given the ids' positions (as a vector cache's load built
// them) is the same index as one that builds them, and keeps them right
// through removals and additions; positions that do not cover the ids are
// refused, as an id given twice is when it builds them.
func TestNewExactFromTakesOverPositions(t *testing.T) {
	const dims, n = 16, 30
	src := NewExact(dims, Options{})
	r := rand.New(rand.NewSource(3))
	vec := func() []float32 {
		v := make([]float32, dims)
		for i := range v {
			v[i] = r.Float32()*2 - 1
		}
		return v
	}
	for i := range n {
		if err := src.Add(fmt.Sprintf("id%02d", i), vec()); err != nil {
			t.Fatal(err)
		}
	}
	var ids []string
	var rows []int8
	var facs []float32
	src.Export(func(i []string, r []int8, f []float32, _ []int32, _ []uint64) {
		ids, rows, facs = append([]string(nil), i...), append([]int8(nil), r...), append([]float32(nil), f...)
	})
	fresh := func(pos map[string]int) (*Exact, error) {
		return NewExactFrom(dims, Options{}, append([]string(nil), ids...), append([]int8(nil), rows...), append([]float32(nil), facs...), nil, nil, pos)
	}
	built, err := fresh(nil)
	if err != nil {
		t.Fatal(err)
	}
	pos := make(map[string]int, n)
	for i, id := range ids {
		pos[id] = i
	}
	given, err := fresh(pos)
	if err != nil {
		t.Fatal(err)
	}
	added := vec()
	for _, e := range []*Exact{built, given} {
		if !e.Remove("id07") || e.Has("id07") {
			t.Fatal("remove")
		}
		if err := e.Add("new", added); err != nil {
			t.Fatal(err)
		}
	}
	for _, id := range append(ids, "new") {
		a, okA := built.Vector(id)
		b, okB := given.Vector(id)
		if okA != okB || fmt.Sprint(a) != fmt.Sprint(b) {
			t.Fatalf("%s: %v %v / %v %v", id, okA, a, okB, b)
		}
	}
	q := vec()
	ra, _ := built.Search(q, 10, nil)
	rb, _ := given.Search(q, 10, nil)
	if fmt.Sprint(ra) != fmt.Sprint(rb) {
		t.Fatalf("searches differ:\n%v\n%v", ra, rb)
	}
	if _, err := fresh(map[string]int{ids[0]: 0}); err == nil {
		t.Fatal("positions of one id for 30 rows accepted")
	}
	dup := append([]string(nil), ids...)
	dup[1] = dup[0]
	if _, err := NewExactFrom(dims, Options{}, dup, append([]int8(nil), rows...), append([]float32(nil), facs...), nil, nil, nil); err == nil {
		t.Fatal("an id given twice accepted")
	}
}
