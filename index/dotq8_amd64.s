//go:build amd64

#include "textflag.h"

// The int8 first pass's kernels (quant.go): rows' int8 codes against a
// query's unsigned codes (1 … 127), exact int32 sums. VPMADDUBSW multiplies
// u8·s8 and adds pairs into int16 (at most 2·127·127 = 32258: no
// saturation), VPMADDWD by ones adds pairs of those into int32.

// func q8Dot1AVX2(row *int8, q *uint8, n int) int32
// n > 0, a multiple of 32.
TEXT ·q8Dot1AVX2(SB), NOSPLIT, $0-28
	MOVQ row+0(FP), SI
	MOVQ q+8(FP), DI
	MOVQ n+16(FP), DX
	XORQ CX, CX
	VPCMPEQW Y15, Y15, Y15
	VPSRLW   $15, Y15, Y15
	VPXOR    Y8, Y8, Y8

loop1:
	VMOVDQU    (SI)(CX*1), Y0
	VMOVDQU    (DI)(CX*1), Y1
	VPMADDUBSW Y0, Y1, Y1
	VPMADDWD   Y15, Y1, Y1
	VPADDD     Y1, Y8, Y8
	ADDQ       $32, CX
	CMPQ       DX, CX
	JNE        loop1

	VEXTRACTI128 $1, Y8, X9
	VPADDD       X9, X8, X8
	VPSHUFD      $0x4e, X8, X9
	VPADDD       X9, X8, X8
	VPSHUFD      $0xb1, X8, X9
	VPADDD       X9, X8, X8
	VMOVD        X8, AX
	MOVL         AX, ret+24(FP)
	VZEROUPPER
	RET

// func q8FilterAVX2(codes *int8, rows, dim int, q *uint8, meta *q8Row, cls *uint8, thrOf *[256]float32, c *q8Consts, out *uint8)
//
// The first pass over a block of rows (a multiple of 4) for one query: for
// each row, the kernel's dot product of its codes with q (as q8Dot1AVX2,
// four rows side by side), then the upper bound of its exact score in
// float32 — a = d·(scale·t) with d the dot less q8QueryOffset·sum, hi = a +
// norm·f + err·ty, widened by margin·(|a| + norm·f + err·ty) — compared
// with the row's threshold, thrOf[cls[row]]: out[g] bit i is set when row
// 4g+i has hi ≥ thrOf[cls[4g+i]] (+Inf: the row is not wanted). The
// caller recomputes the bounds of the rows set in float64.
TEXT ·q8FilterAVX2(SB), NOSPLIT, $0-72
	MOVQ codes+0(FP), SI
	MOVQ rows+8(FP), BX
	MOVQ dim+16(FP), DX
	MOVQ q+24(FP), DI
	MOVQ meta+32(FP), R11
	MOVQ cls+40(FP), R12
	MOVQ thrOf+48(FP), R14
	MOVQ c+56(FP), AX
	MOVQ out+64(FP), R13
	VBROADCASTSS 0(AX), X10  // t
	VBROADCASTSS 4(AX), X11  // f
	VBROADCASTSS 8(AX), X12  // ty
	VBROADCASTSS 12(AX), X13 // abs mask
	VBROADCASTSS 16(AX), X14 // margin
	VPCMPEQW     Y15, Y15, Y15
	VPSRLW       $15, Y15, Y15

group:
	LEAQ  (SI)(DX*1), R8
	LEAQ  (SI)(DX*2), R9
	LEAQ  (R8)(DX*2), R10
	VPXOR Y0, Y0, Y0
	VPXOR Y1, Y1, Y1
	VPXOR Y2, Y2, Y2
	VPXOR Y3, Y3, Y3
	XORQ  CX, CX

chunk:
	VMOVDQU    (DI)(CX*1), Y8
	VPMADDUBSW (SI)(CX*1), Y8, Y4
	VPMADDUBSW (R8)(CX*1), Y8, Y5
	VPMADDUBSW (R9)(CX*1), Y8, Y6
	VPMADDUBSW (R10)(CX*1), Y8, Y7
	VPMADDWD   Y15, Y4, Y4
	VPMADDWD   Y15, Y5, Y5
	VPMADDWD   Y15, Y6, Y6
	VPMADDWD   Y15, Y7, Y7
	VPADDD     Y4, Y0, Y0
	VPADDD     Y5, Y1, Y1
	VPADDD     Y6, Y2, Y2
	VPADDD     Y7, Y3, Y3
	ADDQ       $32, CX
	CMPQ       DX, CX
	JNE        chunk

	// X0 = the four rows' dot products.
	VPHADDD      Y1, Y0, Y0
	VPHADDD      Y3, Y2, Y2
	VPHADDD      Y2, Y0, Y0
	VEXTRACTI128 $1, Y0, X1
	VPADDD       X1, X0, X0

	// The rows' (scale, norm, err, sum), transposed.
	VMOVUPS   (R11), X4
	VMOVUPS   16(R11), X5
	VMOVUPS   32(R11), X6
	VMOVUPS   48(R11), X7
	VUNPCKLPS X5, X4, X1
	VUNPCKHPS X5, X4, X2
	VUNPCKLPS X7, X6, X3
	VUNPCKHPS X7, X6, X8
	VMOVLHPS  X3, X1, X4 // scale
	VMOVHLPS  X1, X3, X5 // norm
	VMOVLHPS  X8, X2, X6 // err
	VMOVHLPS  X2, X8, X7 // sum

	VPSLLD      $6, X7, X7
	VPSUBD      X7, X0, X0
	VCVTDQ2PS   X0, X0
	VMULPS      X10, X4, X4
	VMULPS      X4, X0, X0   // a
	VMULPS      X11, X5, X5
	VFMADD231PS X12, X6, X5  // b = norm·f + err·ty
	VADDPS      X5, X0, X1   // a + b
	VANDPS      X13, X0, X2
	VADDPS      X5, X2, X2   // |a| + b
	VFMADD231PS X14, X2, X1  // hi
	MOVBLZX     0(R12), AX        // the rows' thresholds, by class
	VMOVSS      (R14)(AX*4), X3
	MOVBLZX     1(R12), AX
	VINSERTPS   $0x10, (R14)(AX*4), X3, X3
	MOVBLZX     2(R12), AX
	VINSERTPS   $0x20, (R14)(AX*4), X3, X3
	MOVBLZX     3(R12), AX
	VINSERTPS   $0x30, (R14)(AX*4), X3, X3
	VCMPPS      $0x0d, X3, X1, X1 // hi >= thr
	VMOVMSKPS   X1, AX
	MOVB        AX, (R13)

	ADDQ $1, R13
	ADDQ $4, R12
	ADDQ $64, R11
	LEAQ (SI)(DX*4), SI
	SUBQ $4, BX
	JNZ  group

	VZEROUPPER
	RET
