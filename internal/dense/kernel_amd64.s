//go:build !purego

#include "textflag.h"

// func cpuid(eaxArg, ecxArg uint32) (eax, ebx, ecx, edx uint32)
TEXT ·cpuid(SB), NOSPLIT, $0-24
	MOVL eaxArg+0(FP), AX
	MOVL ecxArg+4(FP), CX
	CPUID
	MOVL AX, eax+8(FP)
	MOVL BX, ebx+12(FP)
	MOVL CX, ecx+16(FP)
	MOVL DX, edx+20(FP)
	RET

// func xgetbv() (eax, edx uint32)
TEXT ·xgetbv(SB), NOSPLIT, $0-8
	MOVL $0, CX
	XGETBV
	MOVL AX, eax+0(FP)
	MOVL DX, edx+4(FP)
	RET

// One step p of the inner dimension: Y0, Y1 ← b[8p : 8p+8]; for each row
// i of the tile, broadcast a[6p+i] and accumulate into the row's two
// registers (Y4+2i, Y5+2i). SI and DI point at a[6p] and b[8p].
#define STEP(aoff, boff) \
	VMOVUPD      boff(DI), Y0         \
	VMOVUPD      boff+32(DI), Y1      \
	VBROADCASTSD aoff(SI), Y2         \
	VFMADD231PD  Y0, Y2, Y4           \
	VFMADD231PD  Y1, Y2, Y5           \
	VBROADCASTSD aoff+8(SI), Y3       \
	VFMADD231PD  Y0, Y3, Y6           \
	VFMADD231PD  Y1, Y3, Y7           \
	VBROADCASTSD aoff+16(SI), Y2      \
	VFMADD231PD  Y0, Y2, Y8           \
	VFMADD231PD  Y1, Y2, Y9           \
	VBROADCASTSD aoff+24(SI), Y3      \
	VFMADD231PD  Y0, Y3, Y10          \
	VFMADD231PD  Y1, Y3, Y11          \
	VBROADCASTSD aoff+32(SI), Y2      \
	VFMADD231PD  Y0, Y2, Y12          \
	VFMADD231PD  Y1, Y2, Y13          \
	VBROADCASTSD aoff+40(SI), Y3      \
	VFMADD231PD  Y0, Y3, Y14          \
	VFMADD231PD  Y1, Y3, Y15

// Row i of the tile: C[i, 0:8] = alpha·acc + C[i, 0:8], then DX to the
// next row.
#define STORE(lo, hi) \
	VFMADD213PD (DX), Y0, lo   \
	VMOVUPD     lo, (DX)       \
	VFMADD213PD 32(DX), Y0, hi \
	VMOVUPD     hi, 32(DX)     \
	ADDQ        R8, DX

// func kernel(k int, a, b, c *float64, ldc int, alpha float64)
TEXT ·kernel(SB), NOSPLIT, $0-48
	MOVQ k+0(FP), CX
	MOVQ a+8(FP), SI
	MOVQ b+16(FP), DI
	MOVQ c+24(FP), DX
	MOVQ ldc+32(FP), R8
	SHLQ $3, R8

	VXORPD Y4, Y4, Y4
	VXORPD Y5, Y5, Y5
	VXORPD Y6, Y6, Y6
	VXORPD Y7, Y7, Y7
	VXORPD Y8, Y8, Y8
	VXORPD Y9, Y9, Y9
	VXORPD Y10, Y10, Y10
	VXORPD Y11, Y11, Y11
	VXORPD Y12, Y12, Y12
	VXORPD Y13, Y13, Y13
	VXORPD Y14, Y14, Y14
	VXORPD Y15, Y15, Y15

	// Four steps at a time, then the remaining k mod 4 one at a time.
	MOVQ CX, BX
	SHRQ $2, BX
	ANDQ $3, CX
	TESTQ BX, BX
	JZ   tail

loop4:
	STEP(0, 0)
	STEP(48, 64)
	STEP(96, 128)
	STEP(144, 192)
	ADDQ $192, SI
	ADDQ $256, DI
	DECQ BX
	JNZ  loop4

tail:
	TESTQ CX, CX
	JZ    store

loop1:
	STEP(0, 0)
	ADDQ $48, SI
	ADDQ $64, DI
	DECQ CX
	JNZ  loop1

store:
	VBROADCASTSD alpha+40(FP), Y0
	STORE(Y4, Y5)
	STORE(Y6, Y7)
	STORE(Y8, Y9)
	STORE(Y10, Y11)
	STORE(Y12, Y13)
	STORE(Y14, Y15)
	VZEROUPPER
	RET

// func gemvT4(n int, a *float64, lda int, x *[4]float64, y *float64)
TEXT ·gemvT4(SB), NOSPLIT, $0-40
	MOVQ n+0(FP), CX
	MOVQ a+8(FP), SI
	MOVQ lda+16(FP), R8
	MOVQ x+24(FP), AX
	MOVQ y+32(FP), DI
	SHLQ $3, R8
	VBROADCASTSD (AX), Y0
	VBROADCASTSD 8(AX), Y1
	VBROADCASTSD 16(AX), Y2
	VBROADCASTSD 24(AX), Y3
	LEAQ (SI)(R8*1), R9
	LEAQ (R9)(R8*1), R10
	LEAQ (R10)(R8*1), R11
	XORQ BX, BX
	SHRQ $2, CX

gemvloop:
	// Two chains, (y + x0 a0) + x2 a2 and x1 a1 + x3 a3, then their sum.
	VMOVUPD     (DI)(BX*8), Y4
	VMULPD      (R9)(BX*8), Y1, Y5
	VFMADD231PD (SI)(BX*8), Y0, Y4
	VFMADD231PD (R11)(BX*8), Y3, Y5
	VFMADD231PD (R10)(BX*8), Y2, Y4
	VADDPD      Y5, Y4, Y4
	VMOVUPD     Y4, (DI)(BX*8)
	ADDQ        $4, BX
	DECQ        CX
	JNZ         gemvloop

	VZEROUPPER
	RET

// func dots4(n int, a0, a1, a2, a3, b *float64, s *[4]float64)
TEXT ·dots4(SB), NOSPLIT, $0-56
	MOVQ n+0(FP), CX
	MOVQ a0+8(FP), R8
	MOVQ a1+16(FP), R9
	MOVQ a2+24(FP), R10
	MOVQ a3+32(FP), R11
	MOVQ b+40(FP), DI
	VXORPD Y4, Y4, Y4
	VXORPD Y5, Y5, Y5
	VXORPD Y6, Y6, Y6
	VXORPD Y7, Y7, Y7
	VXORPD Y8, Y8, Y8
	VXORPD Y9, Y9, Y9
	VXORPD Y10, Y10, Y10
	VXORPD Y11, Y11, Y11
	XORQ BX, BX
	SHRQ $3, CX

dotloop:
	// Eight values of b against each row, in two accumulators per row.
	VMOVUPD     (DI)(BX*8), Y0
	VMOVUPD     32(DI)(BX*8), Y1
	VFMADD231PD (R8)(BX*8), Y0, Y4
	VFMADD231PD 32(R8)(BX*8), Y1, Y8
	VFMADD231PD (R9)(BX*8), Y0, Y5
	VFMADD231PD 32(R9)(BX*8), Y1, Y9
	VFMADD231PD (R10)(BX*8), Y0, Y6
	VFMADD231PD 32(R10)(BX*8), Y1, Y10
	VFMADD231PD (R11)(BX*8), Y0, Y7
	VFMADD231PD 32(R11)(BX*8), Y1, Y11
	ADDQ        $8, BX
	DECQ        CX
	JNZ         dotloop

	// Y4..Y7 ← row sums by lanes; then reduce each to one value.
	VADDPD Y8, Y4, Y4
	VADDPD Y9, Y5, Y5
	VADDPD Y10, Y6, Y6
	VADDPD Y11, Y7, Y7
	// Horizontal: [s0 lanes], [s1 lanes] → pairwise sums.
	VHADDPD Y5, Y4, Y0     // (a0+a1 of row0, row1, a2+a3 of row0, row1)
	VHADDPD Y7, Y6, Y1     // same for rows 2, 3
	VPERM2F128 $0x21, Y1, Y0, Y2 // high half of Y0, low half of Y1
	VBLENDPD   $0x0c, Y1, Y0, Y3 // low half of Y0, high half of Y1
	VADDPD     Y2, Y3, Y3        // (s0, s1, s2, s3)
	MOVQ       s+48(FP), AX
	VMOVUPD    Y3, (AX)
	VZEROUPPER
	RET

// One row k of SumRows' tile: Y8 = w[k]; R11 = &c[offs[k] + j0]; the
// tile's 32 sums in Y0..Y7 each gain the rounded product w[k]·c, rounded.
#define SUMROW(off, acc) \
	VMULPD off(R11), Y8, Y9 \
	VADDPD Y9, acc, acc

// func sumRows32(n int, w *float64, offs *int, nk int, c, t *float64)
TEXT ·sumRows32(SB), NOSPLIT, $0-48
	MOVQ n+0(FP), CX
	MOVQ w+8(FP), SI
	MOVQ offs+16(FP), R8
	MOVQ nk+24(FP), R9
	MOVQ c+32(FP), R10
	MOVQ t+40(FP), DI
	SHRQ $5, CX

tileloop:
	VXORPD Y0, Y0, Y0
	VXORPD Y1, Y1, Y1
	VXORPD Y2, Y2, Y2
	VXORPD Y3, Y3, Y3
	VXORPD Y4, Y4, Y4
	VXORPD Y5, Y5, Y5
	VXORPD Y6, Y6, Y6
	VXORPD Y7, Y7, Y7
	XORQ   BX, BX

rowloop:
	VBROADCASTSD (SI)(BX*8), Y8
	MOVQ         (R8)(BX*8), R11
	LEAQ         (R10)(R11*8), R11
	SUMROW(0, Y0)
	SUMROW(32, Y1)
	SUMROW(64, Y2)
	SUMROW(96, Y3)
	SUMROW(128, Y4)
	SUMROW(160, Y5)
	SUMROW(192, Y6)
	SUMROW(224, Y7)
	INCQ         BX
	CMPQ         BX, R9
	JLT          rowloop

	VMOVUPD Y0, (DI)
	VMOVUPD Y1, 32(DI)
	VMOVUPD Y2, 64(DI)
	VMOVUPD Y3, 96(DI)
	VMOVUPD Y4, 128(DI)
	VMOVUPD Y5, 160(DI)
	VMOVUPD Y6, 192(DI)
	VMOVUPD Y7, 224(DI)
	ADDQ    $256, R10
	ADDQ    $256, DI
	DECQ    CX
	JNZ     tileloop

	VZEROUPPER
	RET

// Four values at off: dst = a·src (Y0 = a), q = q − b·dst (Y1 = b).
#define SCALESUB(off) \
	VMULPD  off(SI)(BX*8), Y0, Y2 \
	VMOVUPD Y2, off(DI)(BX*8)     \
	VMULPD  Y2, Y1, Y3            \
	VMOVUPD off(DX)(BX*8), Y4     \
	VSUBPD  Y3, Y4, Y4            \
	VMOVUPD Y4, off(DX)(BX*8)

// func scaleSub16(n int, a, b float64, src, dst, q *float64)
TEXT ·scaleSub16(SB), NOSPLIT, $0-48
	MOVQ         n+0(FP), CX
	VBROADCASTSD a+8(FP), Y0
	VBROADCASTSD b+16(FP), Y1
	MOVQ         src+24(FP), SI
	MOVQ         dst+32(FP), DI
	MOVQ         q+40(FP), DX
	XORQ         BX, BX
	SHRQ         $4, CX

scaleloop:
	SCALESUB(0)
	SCALESUB(32)
	SCALESUB(64)
	SCALESUB(96)
	ADDQ $16, BX
	DECQ CX
	JNZ  scaleloop

	VZEROUPPER
	RET

// Four columns at off of QuadRow's tile: o += ci·(d·ci + (t + t)), t in
// acc, Y10 = d; AX = &ci[j0], DX = &o[j0].
#define QUADACC(off, acc) \
	VMOVUPD off(AX), Y11   \
	VMULPD  Y11, Y10, Y12  \
	VADDPD  acc, acc, acc  \
	VADDPD  acc, Y12, Y12  \
	VMULPD  Y12, Y11, Y12  \
	VADDPD  off(DX), Y12, Y12 \
	VMOVUPD Y12, off(DX)

// func quadRow32(n int, w *float64, offs *int, nk int, c, ci *float64, d float64, o *float64)
TEXT ·quadRow32(SB), NOSPLIT, $0-64
	MOVQ         n+0(FP), CX
	MOVQ         w+8(FP), SI
	MOVQ         offs+16(FP), R8
	MOVQ         nk+24(FP), R9
	MOVQ         c+32(FP), R10
	MOVQ         ci+40(FP), AX
	VBROADCASTSD d+48(FP), Y10
	MOVQ         o+56(FP), DX
	SHRQ         $5, CX

qtileloop:
	VXORPD Y0, Y0, Y0
	VXORPD Y1, Y1, Y1
	VXORPD Y2, Y2, Y2
	VXORPD Y3, Y3, Y3
	VXORPD Y4, Y4, Y4
	VXORPD Y5, Y5, Y5
	VXORPD Y6, Y6, Y6
	VXORPD Y7, Y7, Y7
	XORQ   BX, BX
	CMPQ   BX, R9
	JGE    qacc

qrowloop:
	VBROADCASTSD (SI)(BX*8), Y8
	MOVQ         (R8)(BX*8), R11
	LEAQ         (R10)(R11*8), R11
	SUMROW(0, Y0)
	SUMROW(32, Y1)
	SUMROW(64, Y2)
	SUMROW(96, Y3)
	SUMROW(128, Y4)
	SUMROW(160, Y5)
	SUMROW(192, Y6)
	SUMROW(224, Y7)
	INCQ         BX
	CMPQ         BX, R9
	JLT          qrowloop

qacc:
	QUADACC(0, Y0)
	QUADACC(32, Y1)
	QUADACC(64, Y2)
	QUADACC(96, Y3)
	QUADACC(128, Y4)
	QUADACC(160, Y5)
	QUADACC(192, Y6)
	QUADACC(224, Y7)
	ADDQ $256, R10
	ADDQ $256, AX
	ADDQ $256, DX
	DECQ CX
	JNZ  qtileloop

	VZEROUPPER
	RET

// func axpy8(n int, a float64, x, y *float64)
TEXT ·axpy8(SB), NOSPLIT, $0-32
	MOVQ         n+0(FP), CX
	VBROADCASTSD a+8(FP), Y0
	MOVQ         x+16(FP), SI
	MOVQ         y+24(FP), DI
	XORQ         BX, BX
	SHRQ         $3, CX

axpyloop:
	VMULPD  (SI)(BX*8), Y0, Y1
	VMULPD  32(SI)(BX*8), Y0, Y2
	VADDPD  (DI)(BX*8), Y1, Y1
	VADDPD  32(DI)(BX*8), Y2, Y2
	VMOVUPD Y1, (DI)(BX*8)
	VMOVUPD Y2, 32(DI)(BX*8)
	ADDQ    $8, BX
	DECQ    CX
	JNZ     axpyloop

	VZEROUPPER
	RET
