// Package dense holds the dense matrix products that dominate the solvers'
// cost: a general product Gemm with the semantics of gonum's blas64.Gemm,
// the Gram matrix Gram, aᵀa with both triangles filled, the matrix–vector
// product Gemv (vectorised for aᵀx), Dots4, four dot products against
// one row, and Mul, gonum's dst.Mul through Gemm for *mat.Dense operands.
//
// # Why
//
// gonum's pure-Go BLAS uses SSE2 loops (AxpyUnitary, DotUnitary) under
// its Gemm, two doubles per instruction and one pass over C per element
// of the inner dimension. On processors with AVX2 and FMA this package
// runs a packed, cache-blocked product with a register-blocked assembly
// micro-kernel, four doubles per instruction with fused multiply–add.
// Elsewhere (other architectures, no AVX2 or FMA, or the purego build
// tag) every function calls gonum, so results there are gonum's.
//
// # Blocking
//
// The product C += α op(A) op(B) with op(A) m × k and op(B) k × n is
// computed in the order of Goto and van de Geijn (2008), "Anatomy of
// high-performance matrix multiplication", ACM TOMS 34(3):
//
//	for jc over n in steps of nc:              B block kc × nc stays in L3
//	  for pc over k in steps of kc:
//	    pack op(B)[pc:pc+kc, jc:jc+nc] into panels of nr columns
//	    for ic over m in steps of mc:          A block mc × kc stays in L2
//	      pack op(A)[ic:ic+mc, pc:pc+kc] into panels of mr rows
//	      for each nr-column panel of B, each mr-row panel of A:
//	        micro-kernel: C[mr × nr] += α · Apanel · Bpanel
//
// Packing copies each block once into the order the micro-kernel reads it
// (a panel of A is kc groups of mr consecutive values, one per row; a panel
// of B is kc groups of nr values), whatever the transposes and strides of
// the operands, and pads the last panel with zeros, so the micro-kernel
// only ever sees full mr × nr tiles. A tile that overhangs C is computed
// into a scratch tile and its valid part added to C. β is applied to C
// once, before the products (β = 0 sets C to zero and so ignores NaN in
// it, as BLAS does).
//
// # Micro-kernel
//
// The AVX2 micro-kernel computes a 6 × 8 tile of C in twelve ymm
// accumulators (two per row of the tile, four doubles each). Each step
// of the inner dimension loads the eight values of a B panel into two
// registers, broadcasts each of the six values of the A panel
// (VBROADCASTSD) and issues twelve VFMADD231PD: twelve independent
// accumulators keep both FMA units of a current core busy through the
// FMA latency. At the end it adds α times the tile into C with one more
// FMA per register.
//
// # Matrix–vector products
//
// Gemv with aᵀx adds four rows of a, weighted by four values of x, into y
// per pass (gemvT4: four FMA per four values of y), where gonum adds one
// row per pass, so y is read and written a quarter as often; large
// products split y's columns among goroutines. Dots4 reads b once for
// four dot products, with two ymm accumulators per row. Both are bound by
// memory on large operands, so they gain less than the matrix product.
//
// # Loops that keep gonum's rounding
//
// SumRows (a sum of weighted rows, the values of one Axpy per row into a
// cleared vector), QuadRow (SumRows and the terms of a quadratic form that
// follow it), ScaleSub (a scaled copy and a product subtracted) and Axpy
// run in ymm registers with VMULPD and VADDPD, never fused, in the order
// of the loops they replace, so that their results are those loops' (and
// gonum's AxpyUnitary's) bit for bit: the sequential solver's candidate
// statistics and rank-one updates use them without changing a fit.
//
// # Parallelism
//
// Products of more than about a million multiply–adds split C among
// runtime.GOMAXPROCS(0) goroutines (along its longer side; Gram along its
// columns so that each worker has a similar share of the upper triangle),
// each with its own packing buffers. Smaller products run on the calling
// goroutine; the smallest go to gonum, whose unpacked loops cost less there.
//
// # Rounding
//
// In the products the fused multiply–add rounds once where gonum rounds
// twice, and the sums are taken in a different order, so results agree
// with gonum's to a few units in the last place of the sizes involved, not
// bit for bit (the loops above excepted).
package dense
