package vrvm

import "math"

// fastExp is eˣ by the table-driven method of glibc's exp (Szabolcs Nagy,
// ARM optimized-routines): x = k ln2/N + r with N = 128 and
// |r| ≤ ln2/(2N), eˣ = 2^(k/N) eʳ with 2^(i/N) from a table of N values
// and eʳ − 1 from its Taylor polynomial of degree 5 (truncation below
// 10⁻¹⁸). Its relative error is below 10⁻¹⁵ (TestExp; math.Exp's is
// about 10⁻¹⁶) and it takes about half math.Exp's time, which matters in
// the Gaussian kernel: the exponential is most of the cost of a
// prediction. Outside (−700, 700), and for NaN, it returns math.Exp(x).
func fastExp(x float64) float64 {
	v := [1]float64{x}
	expTo(v[:])
	return v[0]
}

// expTo sets x[i] = e^x[i] (fastExp) in place, in one loop without calls
// for the arguments in (−700, 700).
func expTo(x []float64) {
	const (
		invLn2N   = expN / math.Ln2
		shift     = 0x1.8p52               // rounds to an integer in the low mantissa bits
		negLn2hiN = -0x1.62e42fefa0000p-8  // −ln2/N, leading bits (exact in k·negLn2hiN)
		negLn2loN = -0x1.cf79abc9e3b3ap-47 // −ln2/N, the rest
	)
	for i, v := range x {
		if !(v > -700 && v < 700) {
			x[i] = math.Exp(v)
			continue
		}
		kd := invLn2N*v + shift
		ki := math.Float64bits(kd)
		kd -= shift
		r := v + kd*negLn2hiN + kd*negLn2loN
		// 2^(k/N) = 2^(k mod N / N) · 2^⌊k/N⌋: the table entry with k's
		// low bits folded into the exponent field by the shift.
		scale := math.Float64frombits(expTable[ki%expN] + ki<<(52-expBits))
		r2 := r * r
		p := r + r2*(1.0/2+r*(1.0/6)) + r2*r2*(1.0/24+r*(1.0/120))
		x[i] = scale + scale*p
	}
}

const (
	expBits = 7
	expN    = 1 << expBits
)

// expTable holds the bits of 2^(i/N), less i in the position of the
// exponent field's lowest bits shifted by 52 − expBits (so that adding
// k << (52 − expBits) yields 2^(i/N) · 2^⌊k/N⌋).
var expTable = func() (t [expN]uint64) {
	for i := range t {
		t[i] = math.Float64bits(math.Exp2(float64(i)/expN)) - uint64(i)<<(52-expBits)
	}
	return t
}()
