package paper

import (
	"fmt"
	"math"
	"runtime"
	"sync"

	"gonum.org/v1/gonum/mat"
)

// Options configures the paper. The zero value runs them with the
// library's default fit settings on all processors, silently.
type Options struct {
	// Workers is the number of fits run at once; 0 means
	// runtime.GOMAXPROCS(0).
	Workers int
	// MaxIter is the iteration limit of every fit, RVM and VRVM; 0 means
	// the estimators' defaults (vrvm.DefaultMaxIter).
	MaxIter int
	// Progress, if not nil, receives one line after every finished fit or
	// step. It is called from one goroutine at a time.
	Progress func(line string)
}

func (o Options) workers() int {
	if o.Workers > 0 {
		return o.Workers
	}
	return runtime.GOMAXPROCS(0)
}

// reporter serialises the progress lines of parallel jobs.
type reporter struct {
	mu   sync.Mutex
	f    func(string)
	done int
}

func (r *reporter) printf(format string, args ...any) {
	if r.f == nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.f(fmt.Sprintf(format, args...))
}

// step counts a finished job and reports it with its number.
func (r *reporter) step(total int, format string, args ...any) {
	r.mu.Lock()
	r.done++
	n := r.done
	r.mu.Unlock()
	r.printf("[%d/%d] "+format, append([]any{n, total}, args...)...)
}

// scaler standardises columns with the mean and the (population) standard
// deviation of the training rows; a constant column is only centred.
type scaler struct {
	mean, sd []float64
}

func newScaler(x mat.Matrix) scaler {
	n, d := x.Dims()
	s := scaler{make([]float64, d), make([]float64, d)}
	for j := range d {
		for i := range n {
			s.mean[j] += x.At(i, j)
		}
		s.mean[j] /= float64(n)
		for i := range n {
			v := x.At(i, j) - s.mean[j]
			s.sd[j] += v * v
		}
		s.sd[j] = math.Sqrt(s.sd[j] / float64(n))
		if s.sd[j] == 0 {
			s.sd[j] = 1
		}
	}
	return s
}

func (s scaler) apply(x mat.Matrix) *mat.Dense {
	n, d := x.Dims()
	out := mat.NewDense(n, d, nil)
	for i := range n {
		for j := range d {
			out.Set(i, j, (x.At(i, j)-s.mean[j])/s.sd[j])
		}
	}
	return out
}

// column returns the values of v as an n × 1 matrix.
func column(v []float64) *mat.Dense { return mat.NewDense(len(v), 1, v) }
