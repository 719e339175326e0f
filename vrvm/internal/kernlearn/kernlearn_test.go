package kernlearn

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"testing"
)

// gaussian is the Gaussian kernel exp(−‖x − y‖²/r²) of (W1), written here
// so that the package is tested without the vrvm package.
type gaussian float64

func (r gaussian) Eval(x, y []float64) float64 {
	var d2 float64
	for i, v := range x {
		d := v - y[i]
		d2 += d * d
	}
	return math.Exp(-d2 / float64(r*r))
}

func gaussAt(r float64) Kernel { return gaussian(r) }

// sincRows returns m rows of d inputs uniform on [−3, 3] and targets
// sin(2x₀) + 0.1ε + 5.
func sincRows(m, d int, seed uint64) ([][]float64, []float64) {
	rng := rand.New(rand.NewPCG(seed, 1))
	rows := make([][]float64, m)
	t := make([]float64, m)
	for i := range rows {
		rows[i] = make([]float64, d)
		for k := range rows[i] {
			rows[i][k] = 6*rng.Float64() - 3
		}
		t[i] = math.Sin(2*rows[i][0]) + 0.1*rng.NormFloat64() + 5
	}
	return rows, t
}

// TestObjectiveGradient checks (E3) against central differences of (E2)
// + (E4), for one width and for ARD length scales.
func TestObjectiveGradient(t *testing.T) {
	t.Parallel()
	rows, y := sincRows(25, 3, 1)
	for _, tied := range []bool{true, false} {
		q := NewEvidence(context.Background(), rows, y, tied, 1.2, nil, gaussAt)
		np := 3
		if tied {
			np = 1
		}
		v := make([]float64, np+2)
		for k := range np {
			v[k] = -0.3 + 0.4*float64(k) // below and above ln r
		}
		v[np], v[np+1] = math.Log(0.5), math.Log(30)
		g := make([]float64, len(v))
		if _, err := q.Objective(v, g); err != nil {
			t.Fatal(err)
		}
		const h = 1e-5
		for i := range v {
			vp, vm := append([]float64(nil), v...), append([]float64(nil), v...)
			vp[i] += h
			vm[i] -= h
			fp, _ := q.Objective(vp, make([]float64, len(v)))
			fm, _ := q.Objective(vm, make([]float64, len(v)))
			if num := (fp - fm) / (2 * h); math.Abs(num-g[i]) > 1e-5*(1+math.Abs(num)) {
				t.Errorf("tied=%v: ∂/∂v[%d] = %g, central difference %g", tied, i, g[i], num)
			}
		}
	}
}

// TestLearn checks that one relevant input of three keeps its length
// scale and switches the others off at the wall of (E4) (E6), and that
// DenseWidth rejects flat targets and stops on a cancelled context.
func TestLearn(t *testing.T) {
	t.Parallel()
	rows, y := sincRows(80, 3, 2)
	r, _, err := DenseWidth(context.Background(), rows, y, 2, gaussAt)
	if err != nil {
		t.Fatal(err)
	}
	res, err := Learn(context.Background(), rows, y, true, r, nil, nil, true, gaussAt)
	if err != nil {
		t.Fatal(err)
	}
	wall := r * math.Exp(Wall)
	if !res.Kept || !(res.Scales[0] < 2*r) || math.Abs(res.Scales[1]/wall-1) > 1e-9 || math.Abs(res.Scales[2]/wall-1) > 1e-9 {
		t.Errorf("scales %.4g (width %.4g, wall %.4g), kept %v: want input 1's below 2r, the others at the wall, kept", res.Scales, r, wall, res.Kept)
	}
	flat := make([]float64, len(y))
	if _, _, err := DenseWidth(context.Background(), rows, flat, 2, gaussAt); !errors.Is(err, ErrFlatTargets) {
		t.Errorf("flat targets: %v, want ErrFlatTargets", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, _, err := DenseWidth(ctx, rows, y, 2, gaussAt); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v, want context.Canceled", err)
	}
}
