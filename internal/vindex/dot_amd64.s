//go:build amd64 && !purego

#include "textflag.h"

// The two four-row kernels (dot4FMA, dot4I8AVX2) differ only in how a row
// is loaded (float32 as is, int8 widened); they share these two pieces.
// The row loops stay written out per kernel: that is where they differ,
// and unrolled by hand is what makes them fast: exact search at 18k rows
// is about 8x faster than with the portable fallback, dotOf in topk.go
// (BENCHMARKS.md, exact search).

// ZERO_ACC8 clears the eight accumulators Y0–Y7: Y0/Y1 for row 0, Y2/Y3
// for row 1, Y4/Y5 for row 2, Y6/Y7 for row 3.
#define ZERO_ACC8 \
	VXORPS Y0, Y0, Y0 \
	VXORPS Y1, Y1, Y1 \
	VXORPS Y2, Y2, Y2 \
	VXORPS Y3, Y3, Y3 \
	VXORPS Y4, Y4, Y4 \
	VXORPS Y5, Y5, Y5 \
	VXORPS Y6, Y6, Y6 \
	VXORPS Y7, Y7, Y7

// REDUCE4_STORE_DX sums each row's two accumulators horizontally and
// stores the four row totals to the [4]float32 at DX.
#define REDUCE4_STORE_DX \
	VADDPS Y1, Y0, Y0 \
	VADDPS Y3, Y2, Y2 \
	VADDPS Y5, Y4, Y4 \
	VADDPS Y7, Y6, Y6 \
	VHADDPS Y2, Y0, Y0 \
	VHADDPS Y6, Y4, Y4 \
	VHADDPS Y4, Y0, Y0 \
	VEXTRACTF128 $1, Y0, X1 \
	VADDPS X1, X0, X0 \
	VMOVUPS X0, (DX)

// func dotFMA(a, b []float32) float32
// Requires AVX2 and FMA; len(b) >= len(a).
TEXT ·dotFMA(SB), NOSPLIT, $0-52
	MOVQ a_base+0(FP), SI
	MOVQ a_len+8(FP), CX
	MOVQ b_base+24(FP), DI
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2
	VXORPS Y3, Y3, Y3

loop32:
	CMPQ CX, $32
	JL   loop8
	VMOVUPS (SI), Y4
	VMOVUPS 32(SI), Y5
	VMOVUPS 64(SI), Y6
	VMOVUPS 96(SI), Y7
	VFMADD231PS (DI), Y4, Y0
	VFMADD231PS 32(DI), Y5, Y1
	VFMADD231PS 64(DI), Y6, Y2
	VFMADD231PS 96(DI), Y7, Y3
	ADDQ $128, SI
	ADDQ $128, DI
	SUBQ $32, CX
	JMP  loop32

loop8:
	CMPQ CX, $8
	JL   reduce
	VMOVUPS (SI), Y4
	VFMADD231PS (DI), Y4, Y0
	ADDQ $32, SI
	ADDQ $32, DI
	SUBQ $8, CX
	JMP  loop8

reduce:
	VADDPS Y1, Y0, Y0
	VADDPS Y3, Y2, Y2
	VADDPS Y2, Y0, Y0
	VEXTRACTF128 $1, Y0, X1
	VADDPS X1, X0, X0
	VHADDPS X0, X0, X0
	VHADDPS X0, X0, X0

tail:
	CMPQ CX, $0
	JE   done
	VMOVSS (SI), X1
	VFMADD231SS (DI), X1, X0
	ADDQ $4, SI
	ADDQ $4, DI
	DECQ CX
	JMP  tail

done:
	VZEROUPPER
	MOVSS X0, ret+48(FP)
	RET

// func cpuid(eax, ecx uint32) (a, b, c, d uint32)
TEXT ·cpuid(SB), NOSPLIT, $0-24
	MOVL eax+0(FP), AX
	MOVL ecx+4(FP), CX
	CPUID
	MOVL AX, a+8(FP)
	MOVL BX, b+12(FP)
	MOVL CX, c+16(FP)
	MOVL DX, d+20(FP)
	RET

// func xgetbv0() (eax, edx uint32)
TEXT ·xgetbv0(SB), NOSPLIT, $0-8
	MOVL $0, CX
	XGETBV
	MOVL AX, eax+0(FP)
	MOVL DX, edx+4(FP)
	RET

// func dot4FMA(q []float32, m []float32, dims int, out *[4]float32)
// Dot products of q[:dims] with the four consecutive rows m[0:dims],
// m[dims:2dims], … Requires AVX2+FMA, dims > 0 and dims%16 == 0,
// len(q) >= dims and len(m) >= 4*dims (checked by the caller).
TEXT ·dot4FMA(SB), NOSPLIT, $0-64
	MOVQ q_base+0(FP), SI
	MOVQ m_base+24(FP), DI
	MOVQ dims+48(FP), CX
	MOVQ out+56(FP), DX
	MOVQ CX, BX
	SHLQ $2, BX
	LEAQ (DI)(BX*1), R8
	LEAQ (R8)(BX*1), R9
	LEAQ (R9)(BX*1), R10
	ZERO_ACC8

loop4:
	VMOVUPS (SI), Y8
	VMOVUPS 32(SI), Y9
	VFMADD231PS (DI), Y8, Y0
	VFMADD231PS 32(DI), Y9, Y1
	VFMADD231PS (R8), Y8, Y2
	VFMADD231PS 32(R8), Y9, Y3
	VFMADD231PS (R9), Y8, Y4
	VFMADD231PS 32(R9), Y9, Y5
	VFMADD231PS (R10), Y8, Y6
	VFMADD231PS 32(R10), Y9, Y7
	ADDQ $64, SI
	ADDQ $64, DI
	ADDQ $64, R8
	ADDQ $64, R9
	ADDQ $64, R10
	SUBQ $16, CX
	JNZ  loop4

	REDUCE4_STORE_DX
	VZEROUPPER
	RET

// func dot4I8AVX2(q []float32, m []int8, dims int, out *[4]float32)
// Dot products of q[:dims] with the four consecutive int8 rows m[0:dims],
// m[dims:2dims], … (sign-extended to int32, converted to float32, fused
// multiply-add). Requires AVX2+FMA, dims > 0 and dims%16 == 0,
// len(q) >= dims and len(m) >= 4*dims (checked by the caller).
TEXT ·dot4I8AVX2(SB), NOSPLIT, $0-64
	MOVQ q_base+0(FP), SI
	MOVQ m_base+24(FP), DI
	MOVQ dims+48(FP), CX
	MOVQ out+56(FP), DX
	LEAQ (DI)(CX*1), R8
	LEAQ (R8)(CX*1), R9
	LEAQ (R9)(CX*1), R10
	ZERO_ACC8

loopi8:
	VMOVUPS (SI), Y8
	VMOVUPS 32(SI), Y9
	VPMOVSXBD (DI), Y10
	VPMOVSXBD 8(DI), Y11
	VPMOVSXBD (R8), Y12
	VPMOVSXBD 8(R8), Y13
	VCVTDQ2PS Y10, Y10
	VCVTDQ2PS Y11, Y11
	VCVTDQ2PS Y12, Y12
	VCVTDQ2PS Y13, Y13
	VFMADD231PS Y8, Y10, Y0
	VFMADD231PS Y9, Y11, Y1
	VFMADD231PS Y8, Y12, Y2
	VFMADD231PS Y9, Y13, Y3
	VPMOVSXBD (R9), Y10
	VPMOVSXBD 8(R9), Y11
	VPMOVSXBD (R10), Y12
	VPMOVSXBD 8(R10), Y13
	VCVTDQ2PS Y10, Y10
	VCVTDQ2PS Y11, Y11
	VCVTDQ2PS Y12, Y12
	VCVTDQ2PS Y13, Y13
	VFMADD231PS Y8, Y10, Y4
	VFMADD231PS Y9, Y11, Y5
	VFMADD231PS Y8, Y12, Y6
	VFMADD231PS Y9, Y13, Y7
	ADDQ $64, SI
	ADDQ $16, DI
	ADDQ $16, R8
	ADDQ $16, R9
	ADDQ $16, R10
	SUBQ $16, CX
	JNZ  loopi8

	REDUCE4_STORE_DX
	VZEROUPPER
	RET

// func dotI8AVX2(a []float32, b []int8) float32
// Dot product of a with the int8 row b[:len(a)]. Requires AVX2+FMA,
// len(a)%16 == 0 and len(b) >= len(a) (checked by the caller).
TEXT ·dotI8AVX2(SB), NOSPLIT, $0-52
	MOVQ a_base+0(FP), SI
	MOVQ a_len+8(FP), CX
	MOVQ b_base+24(FP), DI
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	TESTQ CX, CX
	JE   reducei8

loop1i8:
	VPMOVSXBD (DI), Y2
	VPMOVSXBD 8(DI), Y3
	VCVTDQ2PS Y2, Y2
	VCVTDQ2PS Y3, Y3
	VFMADD231PS (SI), Y2, Y0
	VFMADD231PS 32(SI), Y3, Y1
	ADDQ $64, SI
	ADDQ $16, DI
	SUBQ $16, CX
	JNZ  loop1i8

reducei8:
	VADDPS Y1, Y0, Y0
	VEXTRACTF128 $1, Y0, X1
	VADDPS X1, X0, X0
	VHADDPS X0, X0, X0
	VHADDPS X0, X0, X0
	VZEROUPPER
	MOVSS X0, ret+48(FP)
	RET
