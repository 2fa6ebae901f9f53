//go:build amd64

#include "textflag.h"

// func dot3AVX2(a0, a1, a2, b *float32, n int, out *[3]float32)
//
// out[i] = the dot product of a_i and b (n > 0, a multiple of 32), each
// summed exactly as viterin/vek's Dot_AVX2_F32 sums it: four accumulators
// of eight lanes, accumulator j taking the FMAs of 8-float chunk j of every
// 32-float block in order, then ((acc0+acc1)+acc2)+acc3, the two 128-bit
// halves added, then the 64-bit halves, then the two remaining lanes. The
// three rows are interleaved so that their twelve FMA chains overlap (vek's
// one row at a time waits on its four).
TEXT ·dot3AVX2(SB), NOSPLIT, $0-48
	MOVQ a0+0(FP), DI
	MOVQ a1+8(FP), R8
	MOVQ a2+16(FP), R9
	MOVQ b+24(FP), SI
	MOVQ n+32(FP), DX
	MOVQ out+40(FP), R10
	XORQ CX, CX
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2
	VXORPS Y3, Y3, Y3
	VXORPS Y4, Y4, Y4
	VXORPS Y5, Y5, Y5
	VXORPS Y6, Y6, Y6
	VXORPS Y7, Y7, Y7
	VXORPS Y8, Y8, Y8
	VXORPS Y9, Y9, Y9
	VXORPS Y10, Y10, Y10
	VXORPS Y11, Y11, Y11

loop:
	VMOVUPS     (SI)(CX*4), Y12
	VMOVUPS     32(SI)(CX*4), Y13
	VMOVUPS     64(SI)(CX*4), Y14
	VMOVUPS     96(SI)(CX*4), Y15
	VFMADD231PS (DI)(CX*4), Y12, Y0
	VFMADD231PS 32(DI)(CX*4), Y13, Y1
	VFMADD231PS 64(DI)(CX*4), Y14, Y2
	VFMADD231PS 96(DI)(CX*4), Y15, Y3
	VFMADD231PS (R8)(CX*4), Y12, Y4
	VFMADD231PS 32(R8)(CX*4), Y13, Y5
	VFMADD231PS 64(R8)(CX*4), Y14, Y6
	VFMADD231PS 96(R8)(CX*4), Y15, Y7
	VFMADD231PS (R9)(CX*4), Y12, Y8
	VFMADD231PS 32(R9)(CX*4), Y13, Y9
	VFMADD231PS 64(R9)(CX*4), Y14, Y10
	VFMADD231PS 96(R9)(CX*4), Y15, Y11
	ADDQ        $0x20, CX
	CMPQ        DX, CX
	JNE         loop

	VADDPS       Y0, Y1, Y0
	VADDPS       Y0, Y2, Y0
	VADDPS       Y0, Y3, Y0
	VEXTRACTF128 $0x01, Y0, X1
	VADDPS       X1, X0, X0
	VPERMILPD    $0x01, X0, X1
	VADDPS       X1, X0, X0
	VMOVSHDUP    X0, X1
	VADDSS       X1, X0, X0
	VMOVSS       X0, (R10)

	VADDPS       Y4, Y5, Y4
	VADDPS       Y4, Y6, Y4
	VADDPS       Y4, Y7, Y4
	VEXTRACTF128 $0x01, Y4, X5
	VADDPS       X5, X4, X4
	VPERMILPD    $0x01, X4, X5
	VADDPS       X5, X4, X4
	VMOVSHDUP    X4, X5
	VADDSS       X5, X4, X4
	VMOVSS       X4, 4(R10)

	VADDPS       Y8, Y9, Y8
	VADDPS       Y8, Y10, Y8
	VADDPS       Y8, Y11, Y8
	VEXTRACTF128 $0x01, Y8, X9
	VADDPS       X9, X8, X8
	VPERMILPD    $0x01, X8, X9
	VADDPS       X9, X8, X8
	VMOVSHDUP    X8, X9
	VADDSS       X9, X8, X8
	VMOVSS       X8, 8(R10)

	VZEROUPPER
	RET
