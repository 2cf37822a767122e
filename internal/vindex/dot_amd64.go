//go:build amd64 && !purego

package vindex

//go:noescape
func dotFMA(a, b []float32) float32

func cpuid(eax, ecx uint32) (a, b, c, d uint32)

func xgetbv0() (eax, edx uint32)

// hasAVX2FMA reports whether the CPU and OS support AVX2 and FMA (YMM
// state enabled by the OS via XCR0).
var hasAVX2FMA = func() bool {
	maxID, _, _, _ := cpuid(0, 0)
	if maxID < 7 {
		return false
	}
	_, _, c1, _ := cpuid(1, 0)
	const (
		fma     = 1 << 12
		osxsave = 1 << 27
		avx     = 1 << 28
	)
	if c1&fma == 0 || c1&osxsave == 0 || c1&avx == 0 {
		return false
	}
	if xcr0, _ := xgetbv0(); xcr0&6 != 6 { // XMM and YMM state
		return false
	}
	_, b7, _, _ := cpuid(7, 0)
	return b7&(1<<5) != 0 // AVX2
}()

// dot returns the dot product of a and b[:len(a)].
func dot(a, b []float32) float32 {
	if hasAVX2FMA {
		b = b[:len(a)] // bounds check: the assembly trusts it
		return dotFMA(a, b)
	}
	return dotGeneric(a, b)
}

//go:noescape
func dot4FMA(q []float32, m []float32, dims int, out *[4]float32)

// dot4 computes the dot products of q with the four consecutive rows of
// width len(q) at the start of m.
func dot4(q, m []float32, out *[4]float32) {
	d := len(q)
	m = m[:4*d] // bounds check: the assembly trusts it
	if hasAVX2FMA && d > 0 && d%16 == 0 {
		dot4FMA(q, m, d, out)
		return
	}
	out[0] = dot(q, m[:d])
	out[1] = dot(q, m[d:2*d])
	out[2] = dot(q, m[2*d:3*d])
	out[3] = dot(q, m[3*d:])
}

//go:noescape
func dot4I8AVX2(q []float32, m []int8, dims int, out *[4]float32)

//go:noescape
func dotI8AVX2(a []float32, b []int8) float32

// dotI8 returns the dot product of a and the int8 row b[:len(a)].
func dotI8(a []float32, b []int8) float32 {
	if hasAVX2FMA && len(a)%16 == 0 {
		b = b[:len(a)] // bounds check: the assembly trusts it
		return dotI8AVX2(a, b)
	}
	return dotI8Generic(a, b)
}

// dot4I8 computes the dot products of q with the four consecutive int8
// rows of width len(q) at the start of m.
func dot4I8(q []float32, m []int8, out *[4]float32) {
	d := len(q)
	m = m[:4*d] // bounds check: the assembly trusts it
	if hasAVX2FMA && d > 0 && d%16 == 0 {
		dot4I8AVX2(q, m, d, out)
		return
	}
	dot4I8Generic(q, m, out)
}
