//go:build !amd64 || purego

package vindex

// dot returns the dot product of a and b[:len(a)].
func dot(a, b []float32) float32 { return dotGeneric(a, b) }

// dot4 computes the dot products of q with the four consecutive rows of
// width len(q) at the start of m.
func dot4(q, m []float32, out *[4]float32) { dot4Of(q, m, out) }

// dotI8 returns the dot product of a and the int8 row b[:len(a)].
func dotI8(a []float32, b []int8) float32 { return dotI8Generic(a, b) }

// dot4I8 computes the dot products of q with the four consecutive int8
// rows of width len(q) at the start of m.
func dot4I8(q []float32, m []int8, out *[4]float32) { dot4I8Generic(q, m, out) }
