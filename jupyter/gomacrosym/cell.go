package gomacrosym

import (
	"reflect"

	"github.com/cosmos72/gomacro/imports"

	"github.com/vrvm/vrvm/jupyter/cell"
)

// registerCell makes package cell importable from notebooks. It is written
// by hand: cell exists only for the kernel, so it is not part of the yaegi
// symbol set. SetCellCounter and SetDisplay are left out on purpose; only the
// kernel calls them.
func registerCell(dst imports.PackageMap) {
	dst.MergePackage("github.com/vrvm/vrvm/jupyter/cell", imports.PackageUnderlying{
		Name: "cell",
		Binds: map[string]reflect.Value{
			"Context":              reflect.ValueOf(cell.Context),
			"ErrInterrupted":       reflect.ValueOf(&cell.ErrInterrupted).Elem(),
			"Interrupt":            reflect.ValueOf(cell.Interrupt),
			"Interrupted":          reflect.ValueOf(cell.Interrupted),
			"NewProgress":          reflect.ValueOf(cell.NewProgress),
			"DefaultProgressEvery": reflect.ValueOf(cell.DefaultProgressEvery),
		},
		Types: map[string]reflect.Type{
			"Progress": reflect.TypeOf((*cell.Progress)(nil)).Elem(),
		},
	})
}
