//go:build !purego

#include "textflag.h"

// The AVX-512 micro-kernel: an 8 × 24 tile of C in 24 zmm accumulators,
// Z8+3i, Z9+3i, Z10+3i for row i (eight doubles each). Each step p of the
// inner dimension loads the 24 values of the B panel into Z0–Z2,
// broadcasts each of the eight values of the A panel (into Z3 or Z4 in
// turn) and issues 24 VFMADD231PD.

// One row i of a step: broadcast a[8p+i] (at aoff) into bc, then three
// FMA into the row's accumulators r0, r1, r2.
#define ROW(aoff, bc, r0, r1, r2) \
	VBROADCASTSD aoff(SI), bc  \
	VFMADD231PD  Z0, bc, r0    \
	VFMADD231PD  Z1, bc, r1    \
	VFMADD231PD  Z2, bc, r2

// One step p; SI and DI point at a[8p] and b[24p].
#define STEP(aoff, boff) \
	VMOVUPD boff(DI), Z0                  \
	VMOVUPD boff+64(DI), Z1               \
	VMOVUPD boff+128(DI), Z2              \
	ROW(aoff, Z3, Z8, Z9, Z10)            \
	ROW(aoff+8, Z4, Z11, Z12, Z13)        \
	ROW(aoff+16, Z3, Z14, Z15, Z16)       \
	ROW(aoff+24, Z4, Z17, Z18, Z19)       \
	ROW(aoff+32, Z3, Z20, Z21, Z22)       \
	ROW(aoff+40, Z4, Z23, Z24, Z25)       \
	ROW(aoff+48, Z3, Z26, Z27, Z28)       \
	ROW(aoff+56, Z4, Z29, Z30, Z31)

// Row i of the tile: C[i, 0:24] = alpha·acc + C[i, 0:24] (alpha in Z0),
// then DX to the next row.
#define STORE(r0, r1, r2) \
	VFMADD213PD (DX), Z0, r0      \
	VMOVUPD     r0, (DX)          \
	VFMADD213PD 64(DX), Z0, r1    \
	VMOVUPD     r1, 64(DX)        \
	VFMADD213PD 128(DX), Z0, r2   \
	VMOVUPD     r2, 128(DX)       \
	ADDQ        R8, DX

// func kernel512(k int, a, b, c *float64, ldc int, alpha float64)
TEXT ·kernel512(SB), NOSPLIT, $0-48
	MOVQ k+0(FP), CX
	MOVQ a+8(FP), SI
	MOVQ b+16(FP), DI
	MOVQ c+24(FP), DX
	MOVQ ldc+32(FP), R8
	SHLQ $3, R8

	VPXORQ Z8, Z8, Z8
	VPXORQ Z9, Z9, Z9
	VPXORQ Z10, Z10, Z10
	VPXORQ Z11, Z11, Z11
	VPXORQ Z12, Z12, Z12
	VPXORQ Z13, Z13, Z13
	VPXORQ Z14, Z14, Z14
	VPXORQ Z15, Z15, Z15
	VPXORQ Z16, Z16, Z16
	VPXORQ Z17, Z17, Z17
	VPXORQ Z18, Z18, Z18
	VPXORQ Z19, Z19, Z19
	VPXORQ Z20, Z20, Z20
	VPXORQ Z21, Z21, Z21
	VPXORQ Z22, Z22, Z22
	VPXORQ Z23, Z23, Z23
	VPXORQ Z24, Z24, Z24
	VPXORQ Z25, Z25, Z25
	VPXORQ Z26, Z26, Z26
	VPXORQ Z27, Z27, Z27
	VPXORQ Z28, Z28, Z28
	VPXORQ Z29, Z29, Z29
	VPXORQ Z30, Z30, Z30
	VPXORQ Z31, Z31, Z31

	// Four steps at a time, then the remaining k mod 4 one at a time.
	MOVQ  CX, BX
	SHRQ  $2, BX
	ANDQ  $3, CX
	TESTQ BX, BX
	JZ    tail

loop4:
	STEP(0, 0)
	STEP(64, 192)
	STEP(128, 384)
	STEP(192, 576)
	ADDQ $256, SI
	ADDQ $768, DI
	DECQ BX
	JNZ  loop4

tail:
	TESTQ CX, CX
	JZ    store

loop1:
	STEP(0, 0)
	ADDQ $64, SI
	ADDQ $192, DI
	DECQ CX
	JNZ  loop1

store:
	VBROADCASTSD alpha+40(FP), Z0
	STORE(Z8, Z9, Z10)
	STORE(Z11, Z12, Z13)
	STORE(Z14, Z15, Z16)
	STORE(Z17, Z18, Z19)
	STORE(Z20, Z21, Z22)
	STORE(Z23, Z24, Z25)
	STORE(Z26, Z27, Z28)
	STORE(Z29, Z30, Z31)
	VZEROUPPER
	RET
