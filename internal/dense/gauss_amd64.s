//go:build !purego

#include "textflag.h"

// func gaussRow512(n, d int, x, ct *float64, ldc int, s float64, out *float64)
//
// out[j] = exp(s·Σₗ (x[l] − ct[l·ldc + j])²) for j < n (n a positive
// multiple of 8), eight j per step in one zmm register. The exponential:
// k = round(v·log₂e), r = v − k·ln2 (ln2 in two parts), eʳ by its Taylor
// polynomial of degree 13 (truncation below 5·10⁻¹⁸ for |r| ≤ ln2/2),
// then VSCALEFPD multiplies by 2ᵏ (0 below the subnormal range).
TEXT ·gaussRow512(SB), NOSPLIT, $0-56
	MOVQ n+0(FP), CX
	MOVQ d+8(FP), R9
	MOVQ x+16(FP), SI
	MOVQ ct+24(FP), DI
	MOVQ ldc+32(FP), R8
	SHLQ $3, R8
	VBROADCASTSD s+40(FP), Z31
	MOVQ out+48(FP), DX

	MOVQ $0x3ff71547652b82fe, AX // log₂e
	VPBROADCASTQ AX, Z30
	MOVQ $0x3fe62e42fefa39ef, AX // ln2, leading part
	VPBROADCASTQ AX, Z29
	MOVQ $0x3c7abc9e3b39803f, AX // ln2 − leading part
	VPBROADCASTQ AX, Z28
	MOVQ $0x3ff0000000000000, AX // 1
	VPBROADCASTQ AX, Z27
	MOVQ $0x3de6124613a86d09, AX // 1/13!
	VPBROADCASTQ AX, Z26
	MOVQ $0x3e21eed8eff8d898, AX // 1/12!
	VPBROADCASTQ AX, Z25
	MOVQ $0x3e5ae64567f544e4, AX // 1/11!
	VPBROADCASTQ AX, Z24
	MOVQ $0x3e927e4fb7789f5c, AX // 1/10!
	VPBROADCASTQ AX, Z23
	MOVQ $0x3ec71de3a556c734, AX // 1/9!
	VPBROADCASTQ AX, Z22
	MOVQ $0x3efa01a01a01a01a, AX // 1/8!
	VPBROADCASTQ AX, Z21
	MOVQ $0x3f2a01a01a01a01a, AX // 1/7!
	VPBROADCASTQ AX, Z20
	MOVQ $0x3f56c16c16c16c17, AX // 1/6!
	VPBROADCASTQ AX, Z19
	MOVQ $0x3f81111111111111, AX // 1/5!
	VPBROADCASTQ AX, Z18
	MOVQ $0x3fa5555555555555, AX // 1/4!
	VPBROADCASTQ AX, Z17
	MOVQ $0x3fc5555555555555, AX // 1/3!
	VPBROADCASTQ AX, Z16
	MOVQ $0x3fe0000000000000, AX // 1/2!
	VPBROADCASTQ AX, Z15

	XORQ BX, BX // j
	SHRQ $3, CX

col:
	// Z0 = Σₗ (x[l] − ct[l, j:j+8])², l = 0 … d−1.
	VPXORQ Z0, Z0, Z0
	LEAQ   (DI)(BX*8), R10
	MOVQ   SI, R11
	MOVQ   R9, R12

dim:
	VBROADCASTSD (R11), Z1
	VSUBPD       (R10), Z1, Z1
	VFMADD231PD  Z1, Z1, Z0
	ADDQ         $8, R11
	ADDQ         R8, R10
	DECQ         R12
	JNZ          dim

	// v = s·d², k = round(v·log₂e), r = v − k·ln2.
	VMULPD       Z31, Z0, Z0
	VMULPD       Z30, Z0, Z1
	VRNDSCALEPD  $0, Z1, Z1
	VMOVAPD      Z0, Z2
	VFNMADD231PD Z29, Z1, Z2
	VFNMADD231PD Z28, Z1, Z2

	// p = Σₖ rᵏ/k!, k ≤ 13, by Horner.
	VMOVAPD     Z26, Z3
	VFMADD213PD Z25, Z2, Z3
	VFMADD213PD Z24, Z2, Z3
	VFMADD213PD Z23, Z2, Z3
	VFMADD213PD Z22, Z2, Z3
	VFMADD213PD Z21, Z2, Z3
	VFMADD213PD Z20, Z2, Z3
	VFMADD213PD Z19, Z2, Z3
	VFMADD213PD Z18, Z2, Z3
	VFMADD213PD Z17, Z2, Z3
	VFMADD213PD Z16, Z2, Z3
	VFMADD213PD Z15, Z2, Z3
	VFMADD213PD Z27, Z2, Z3
	VFMADD213PD Z27, Z2, Z3

	// eᵛ = p·2ᵏ.
	VSCALEFPD Z1, Z3, Z3
	VMOVUPD   Z3, (DX)(BX*8)
	ADDQ      $8, BX
	DECQ      CX
	JNZ       col

	VZEROUPPER
	RET
