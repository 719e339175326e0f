// Package symbols is a hand-written file that genproxy must ignore.
package symbols

import "reflect"

var Symbols = map[string]map[string]reflect.Value{}
