package index

import (
	"fmt"
	"hash/fnv"
	"sort"
)

// CorpusHash is FORMATS.md's corpus id: "<count>:<16 hex>" with FNV-1a 64
// over the sorted ids, each followed by a NUL byte.
func CorpusHash(ids []string) string {
	sorted := append([]string(nil), ids...)
	sort.Strings(sorted)
	h := fnv.New64a()
	for _, id := range sorted {
		h.Write([]byte(id))
		h.Write([]byte{0})
	}
	return fmt.Sprintf("%d:%016x", len(sorted), h.Sum64())
}
