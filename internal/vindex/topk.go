package vindex

import "sort"

type scored struct {
	s   float32
	row int32
}

// topK is a bounded min-heap keeping the k largest scores seen. Ties are
// broken towards the lower row so results are deterministic.
type topK struct {
	k     int
	items []scored
}

func less(a, b scored) bool { // a ranks below b
	if a.s != b.s {
		return a.s < b.s
	}
	return a.row > b.row
}

// offer pushes row r with score s if it beats the current k-th best and
// allow (nil = all) accepts its id; allow is consulted only for rows that
// would enter the heap.
func (h *topK) offer(s float32, r int, ids []string, allow func(string) bool) {
	if len(h.items) == h.k && s <= h.items[0].s {
		return
	}
	if allow != nil && !allow(ids[r]) {
		return
	}
	h.push(scored{s, int32(r)})
}

func (h *topK) push(x scored) {
	if len(h.items) < h.k {
		h.items = append(h.items, x)
		i := len(h.items) - 1
		for i > 0 {
			p := (i - 1) / 2
			if !less(h.items[i], h.items[p]) {
				break
			}
			h.items[i], h.items[p] = h.items[p], h.items[i]
			i = p
		}
		return
	}
	if !less(h.items[0], x) {
		return
	}
	h.items[0] = x
	i, n := 0, len(h.items)
	for {
		l := 2*i + 1
		if l >= n {
			break
		}
		m := l
		if r := l + 1; r < n && less(h.items[r], h.items[l]) {
			m = r
		}
		if !less(h.items[m], h.items[i]) {
			break
		}
		h.items[i], h.items[m] = h.items[m], h.items[i]
		i = m
	}
}

// sorted returns the items best first.
func (h *topK) sorted() []scored {
	sort.Slice(h.items, func(i, j int) bool { return less(h.items[j], h.items[i]) })
	return h.items
}

// dotGeneric is the portable float32 dot product over len(a) elements; b
// must be at least as long.
func dotGeneric(a, b []float32) float32 { return dotOf(a, b) }

// dotI8Generic is the portable dot product of a float32 vector with an
// int8 row (b must be at least as long as a).
func dotI8Generic(a []float32, b []int8) float32 { return dotOf(a, b) }

// dot4I8Generic computes the dot products of q with the four consecutive
// int8 rows of width len(q) at the start of m.
func dot4I8Generic(q []float32, m []int8, out *[4]float32) { dot4Of(q, m, out) }

// dotOf is an 8-way unrolled dot product of a with b[:len(a)]. Each element
// type gets its own instantiation (float32 and int8 differ in shape), so
// the conversion costs nothing for float32 rows.
func dotOf[T float32 | int8](a []float32, b []T) float32 {
	n := len(a)
	b = b[:n]
	var s0, s1, s2, s3, s4, s5, s6, s7 float32
	i := 0
	for ; i+8 <= n; i += 8 {
		x := a[i : i+8 : i+8]
		y := b[i : i+8 : i+8]
		s0 += x[0] * float32(y[0])
		s1 += x[1] * float32(y[1])
		s2 += x[2] * float32(y[2])
		s3 += x[3] * float32(y[3])
		s4 += x[4] * float32(y[4])
		s5 += x[5] * float32(y[5])
		s6 += x[6] * float32(y[6])
		s7 += x[7] * float32(y[7])
	}
	for ; i < n; i++ {
		s0 += a[i] * float32(b[i])
	}
	return ((s0 + s1) + (s2 + s3)) + ((s4 + s5) + (s6 + s7))
}

// dot4Of computes the dot products of q with the four consecutive rows of
// width len(q) at the start of m.
func dot4Of[T float32 | int8](q []float32, m []T, out *[4]float32) {
	d := len(q)
	m = m[:4*d]
	out[0] = dotOf(q, m[:d])
	out[1] = dotOf(q, m[d:2*d])
	out[2] = dotOf(q, m[2*d:3*d])
	out[3] = dotOf(q, m[3*d:])
}
