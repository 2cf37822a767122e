package index

// LSH is a locality-sensitive hash for write-time dedup: bit i is
// whether vec[a_i] > vec[b_i] for fixed random coordinate pairs, that is
// the sign of a projection onto e_a − e_b, a (sparse) random hyperplane
// through the origin that works for non-negative embeddings too. Like sign
// random projections, near duplicates agree on almost every bit, so they
// share one of 24 bands of 16 bits (cosine 0.92: 94%; 0.95: 99%), while
// unrelated texts rarely do (cosine 0.3: under 1%).
// Candidates are verified with the exact cosine, so the index can only
// miss, never invent, a duplicate.
const (
	lshBands      = 24
	lshBits       = 16
	MaxCandidates = 2048
)

type LSH struct {
	coords  []int // pairs: a_i = coords[2i], b_i = coords[2i+1]
	bits    int
	buckets [lshBands]map[uint16][]string
	keysOf  map[string][lshBands]uint16
	seen    map[string]bool // scratch for candidates
}

// NewLSH is an empty LSH for vectors of dims coordinates.
func NewLSH(dims int) *LSH {
	bits := lshBits
	if dims < lshBands*bits {
		bits = max(1, dims/lshBands)
	}
	l := &LSH{bits: bits, coords: make([]int, 2*lshBands*bits), keysOf: map[string][lshBands]uint16{}}
	var x uint64 = 0x9e3779b97f4a7c15 // fixed splitmix64 stream: every process picks the same pairs
	next := func() int {
		x += 0x9e3779b97f4a7c15
		z := x
		z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
		z = (z ^ (z >> 27)) * 0x94d049bb133111eb
		return int((z ^ (z >> 31)) % uint64(dims))
	}
	for i := 0; i < len(l.coords); i += 2 {
		l.coords[i] = next()
		l.coords[i+1] = next()
		for dims > 1 && l.coords[i+1] == l.coords[i] {
			l.coords[i+1] = next()
		}
	}
	for b := range l.buckets {
		l.buckets[b] = map[uint16][]string{}
	}
	return l
}

func (l *LSH) keys(vec []float32) [lshBands]uint16 {
	var k [lshBands]uint16
	for b := 0; b < lshBands; b++ {
		var key uint16
		for j := 0; j < l.bits; j++ {
			key <<= 1
			i := 2 * (b*l.bits + j)
			if a, c := l.coords[i], l.coords[i+1]; a < len(vec) && c < len(vec) && vec[a] > vec[c] {
				key |= 1
			}
		}
		k[b] = key
	}
	return k
}

// keysRow is keys for a vector as an exact index stores it (int8s with a
// positive factor, which preserves the order of every coordinate pair).
func (l *LSH) keysRow(q []int8) [lshBands]uint16 {
	var k [lshBands]uint16
	for b := 0; b < lshBands; b++ {
		var key uint16
		for j := 0; j < l.bits; j++ {
			key <<= 1
			i := 2 * (b*l.bits + j)
			if a, c := l.coords[i], l.coords[i+1]; a < len(q) && c < len(q) && q[a] > q[c] {
				key |= 1
			}
		}
		k[b] = key
	}
	return k
}

// AddRows indexes the rows of an exact index (ids[r]'s vector is
// rows[r*dims:(r+1)*dims]) into an empty LSH, as AddRow one by one would,
// with each band's buckets carved from one array and its map sized once:
// the build at the first dedup of an ingest hashes every stored vector.
func (l *LSH) AddRows(ids []string, rows []int8, dims int) {
	one := func() {
		for r, id := range ids {
			l.AddRow(id, rows[r*dims:(r+1)*dims])
		}
	}
	if len(l.keysOf) != 0 {
		one()
		return
	}
	n := len(ids)
	keys := make([][lshBands]uint16, n)
	l.keysOf = make(map[string][lshBands]uint16, n)
	for r, id := range ids {
		keys[r] = l.keysRow(rows[r*dims : (r+1)*dims])
		l.keysOf[id] = keys[r]
	}
	if len(l.keysOf) != n {
		// An id given twice (an exact index's never are): AddRow's
		// removal order decides its buckets' order.
		clear(l.keysOf)
		one()
		return
	}
	count := make([]int32, 1<<lshBits)
	for b := range l.buckets {
		clear(count)
		distinct := 0
		for r := range keys {
			k := keys[r][b]
			if count[k] == 0 {
				distinct++
			}
			count[k]++
		}
		m := make(map[uint16][]string, distinct)
		backing := make([]string, n)
		next := 0
		for r, id := range ids {
			k := keys[r][b]
			list, ok := m[k]
			if !ok {
				// Capacity exactly the bucket's: a later Add copies it
				// rather than writing into the next bucket's room.
				c := int(count[k])
				list = backing[next : next : next+c]
				next += c
			}
			m[k] = append(list, id)
		}
		l.buckets[b] = m
	}
}

// Add indexes id's vector.
func (l *LSH) Add(id string, vec []float32) { l.addKeys(id, l.keys(vec)) }

// AddRow indexes id's vector as an exact index stores it.
func (l *LSH) AddRow(id string, row []int8) { l.addKeys(id, l.keysRow(row)) }

func (l *LSH) addKeys(id string, k [lshBands]uint16) {
	l.Remove(id)
	l.keysOf[id] = k
	for b, key := range k {
		l.buckets[b][key] = append(l.buckets[b][key], id)
	}
}

// Remove drops id.
func (l *LSH) Remove(id string) {
	k, ok := l.keysOf[id]
	if !ok {
		return
	}
	delete(l.keysOf, id)
	for b, key := range k {
		list := l.buckets[b][key]
		for i, x := range list {
			if x == id {
				list[i] = list[len(list)-1]
				list = list[:len(list)-1]
				break
			}
		}
		if len(list) == 0 {
			delete(l.buckets[b], key)
		} else {
			l.buckets[b][key] = list
		}
	}
}

// Candidates lists the distinct ids sharing at least one band with vec.
func (l *LSH) Candidates(vec []float32) []string {
	k := l.keys(vec)
	var out []string
	if l.seen == nil {
		l.seen = map[string]bool{}
	}
	seen := l.seen
	clear(seen)
	for b, key := range k {
		for _, id := range l.buckets[b][key] {
			if !seen[id] {
				seen[id] = true
				out = append(out, id)
			}
		}
		if len(out) > MaxCandidates {
			break
		}
	}
	return out
}
