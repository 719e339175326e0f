package datasets_test

import (
	"fmt"
	"log"
	"strings"

	"github.com/vrvm/vrvm/vrvm/datasets"
)

// Sinc data are the same for the same seed.
func ExampleSinc() {
	d, err := datasets.Sinc(100, 0.1, 1)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%d examples of %d input %q, target %q\n", d.Len(), d.Dim(), d.Columns[0], d.Target)
	for i := range 3 {
		x := d.X.At(i, 0)
		fmt.Printf("x = %7.4f   t = %7.4f   sinc(x) = %7.4f\n", x, d.T[i], datasets.SincTrue(x))
	}
	// Output:
	// 100 examples of 1 input "x", target "t"
	// x = -3.1943   t =  0.2109   sinc(x) = -0.0165
	// x =  8.1992   t = -0.0324   sinc(x) =  0.1148
	// x =  6.5757   t = -0.0324   sinc(x) =  0.0439
}

func ExampleRipley() {
	d, err := datasets.Ripley(250, 1)
	if err != nil {
		log.Fatal(err)
	}
	ones := 0
	for _, t := range d.T {
		ones += int(t)
	}
	fmt.Printf("%d examples, %d of class 1, inputs %v\n", d.Len(), ones, d.Columns)
	// Output:
	// 250 examples, 125 of class 1, inputs [xs ys]
}

// A CSV file with a text label column, and the error for a bad cell.
func ExampleReadCSVOptions() {
	const data = `x1,x2,class
0.5,1.5,yes
-1,2e-1,no
`
	opt := datasets.CSVOptions{Labels: map[string]map[string]float64{"class": {"no": 0, "yes": 1}}}
	tab, err := datasets.ReadCSVOptions(strings.NewReader(data), "points.csv", opt)
	if err != nil {
		log.Fatal(err)
	}
	d, err := tab.Dataset("class")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(d.Columns, d.X.RawRowView(1), d.T)

	_, err = datasets.ReadCSVOptions(strings.NewReader(data+"3,x,no\n"), "points.csv", opt)
	fmt.Println(err)
	_, err = tab.Dataset("label")
	fmt.Println(err)
	// Output:
	// [x1 x2] [-1 0.2] [1 0]
	// points.csv:4: column "x2" (field 2): not a number: "x"
	// points.csv: no such column "label"; columns are x1, x2, class
}

// Standardise the inputs with the training rows' statistics and apply the
// same Scaling to the rows to predict, as vrvm fit does by default.
func ExampleScaling() {
	train, err := datasets.ReadCSV(strings.NewReader("size,rooms,price\n120,4,300\n80,3,210\n200,6,520\n"), "train.csv")
	if err != nil {
		log.Fatal(err)
	}
	d, err := train.Dataset("price")
	if err != nil {
		log.Fatal(err)
	}
	s, err := datasets.NewScaling(d.X)
	if err != nil {
		log.Fatal(err)
	}
	dz, err := s.ApplyTo(d) // fit a model to dz.X, dz.T
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("means %.4g, sds %.4g\n", s.Mean, s.SD)
	fmt.Printf("first row standardised: %.4f\n", dz.X.RawRowView(0))
	// Output:
	// means [133.3 4.333], sds [49.89 1.247]
	// first row standardised: [-0.2673 -0.2673]
}

// ExampleReadTable reads a file as R's write.csv writes it: row names, a
// text column and missing values, which ReadCSV would reject.
func ExampleReadTable() {
	const in = `"","sex","FL","CW"
"1","M",8.1,NA
"2",NA,8.8,7.7
"3","F",,9.6
`
	f, err := datasets.ReadTable(strings.NewReader(in), "crabs.csv", datasets.ReadOptions{Text: []string{"sex"}})
	if err != nil {
		fmt.Println(err)
		return
	}
	sex, _ := f.Text("sex")
	fl, _ := f.Numeric("FL")
	fmt.Printf("columns %q\nrow names %q\nsex %q\nFL %v\n", f.Columns(), f.RowNames(), sex, fl)
	_, err = f.Dataset("CW")
	fmt.Println(err)
	// Output:
	// columns ["rownames" "sex" "FL" "CW"]
	// row names ["1" "2" "3"]
	// sex ["M" "" "F"]
	// FL [8.1 8.8 NaN]
	// crabs.csv:2: column "CW" (field 4): missing value: the cell is empty, NA or NaN
}
