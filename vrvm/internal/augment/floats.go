package augment

import (
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
)

// Floats is a vector of a model file (version 4 on) written as one
// base64 string of its values as little-endian IEEE 754 doubles: exact,
// as the decimal form is, in about 10.7 bytes a value against the 18–24
// of a decimal number and its comma. It reads either form, so that a
// field of earlier files, a JSON array of numbers, still loads.
type Floats []float64

// MarshalJSON writes f as a base64 string.
func (f Floats) MarshalJSON() ([]byte, error) {
	raw := make([]byte, 8*len(f))
	for i, v := range f {
		binary.LittleEndian.PutUint64(raw[8*i:], math.Float64bits(v))
	}
	return json.Marshal(base64.StdEncoding.EncodeToString(raw))
}

// UnmarshalJSON reads a base64 string of 8-byte values or an array of
// numbers.
func (f *Floats) UnmarshalJSON(b []byte) error {
	if len(b) > 0 && b[0] == '[' {
		var v []float64
		if err := json.Unmarshal(b, &v); err != nil {
			return err
		}
		*f = v
		return nil
	}
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return err
	}
	raw, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		return err
	}
	if len(raw)%8 != 0 {
		return fmt.Errorf("floats: %d bytes, not a whole number of 8-byte values", len(raw))
	}
	v := make([]float64, len(raw)/8)
	for i := range v {
		v[i] = math.Float64frombits(binary.LittleEndian.Uint64(raw[8*i:]))
	}
	*f = v
	return nil
}

// Rows returns f as rows of cols values (nil for an empty f), or an error
// if its length is not rows × cols.
func (f Floats) Rows(rows, cols int) ([][]float64, error) {
	if len(f) != rows*cols {
		return nil, fmt.Errorf("floats: %d values, want %d × %d", len(f), rows, cols)
	}
	out := make([][]float64, rows)
	for i := range out {
		out[i] = f[i*cols : (i+1)*cols : (i+1)*cols]
	}
	return out, nil
}

// Flat returns the rows of equal length joined, by rows.
func Flat(rows [][]float64) Floats {
	var out Floats
	for _, r := range rows {
		out = append(out, r...)
	}
	return out
}
