//go:build windows

package vindex

// HNSW on Windows is exact search: github.com/coder/hnsw v0.6.1 does not
// build there (it uses renameio.TempFile, which is unix-only). The index
// kind "hnsw" is accepted so one configuration works on every platform;
// results equal Exact's, which the unix HNSW also re-ranks to.
type HNSW struct {
	exact *Exact
}

// NewHNSW returns an exact index standing in for HNSW on Windows.
func NewHNSW(dims int, opts Options) *HNSW { return &HNSW{exact: NewExact(dims, opts)} }

// LastError is always nil: there is no graph to fail.
func (h *HNSW) LastError() error { return nil }

func (h *HNSW) Add(id string, vec []float32) error { return h.exact.Add(id, vec) }
func (h *HNSW) Remove(id string) bool              { return h.exact.Remove(id) }
func (h *HNSW) Search(q []float32, k int, allow func(id string) bool) ([]Hit, error) {
	return h.exact.Search(q, k, allow)
}
func (h *HNSW) Vector(id string) ([]float32, bool)            { return h.exact.Vector(id) }
func (h *HNSW) Cosine(q []float32, id string) (float32, bool) { return h.exact.Cosine(q, id) }
func (h *HNSW) Len() int                                      { return h.exact.Len() }
func (h *HNSW) Dims() int                                     { return h.exact.Dims() }

// Export is Exact.Export of the stored vectors.
func (h *HNSW) Export(fn func(ids []string, rows []int8, facs []float32, df []int32, codes []uint64)) {
	h.exact.Export(fn)
}
