// Package learned holds the scanner's learned injection detector: the
// committed model file (embedded, parsed on first use) and the hooks
// through which the training and evaluation commands see exactly what
// package scan feeds the model.
//
// The model is trained by `go run ./internal/scan/internal/train` (make
// train-scanner) from the corpora under internal/scan/testdata; the same
// data and code give the same bytes.
package learned

import (
	_ "embed"

	"github.com/odekmem/odekmem/internal/textclf"
)

//go:embed injection.tclf
var modelBytes []byte

// Model returns the learned injection detector, parsed from the embedded
// file on the first call. An error means the file is missing or corrupt;
// the scanner then runs its rules alone and its tests fail.
var Model = textclf.LoadOnce(modelBytes)

// ModelFile is the path of the model file relative to the repository
// root, where the training command writes it.
const ModelFile = "internal/scan/internal/learned/injection.tclf"

// Input returns what the model reads for a text: the scanner's normalised
// view and the dense features named by DenseNames. Package scan sets it
// when it is initialised; it is nil in a program that does not link scan.
var Input func(text string) (view string, dense []float32)

// DenseNames names the dense features Input returns, in order. Package
// scan sets it with Input.
var DenseNames []string
