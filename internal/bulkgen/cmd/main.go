// Command bulkgen writes a large import or ingest input to stdout (see
// package bulkgen): go run ./internal/bulkgen/cmd -kind import -lines 1000000 > import.jsonl
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/odekmem/odekmem/internal/bulkgen"
)

func main() {
	kind := flag.String("kind", "import", "import (export-shaped JSONL) or ingest (an agent transcript)")
	lines := flag.Int("lines", 1000, "lines to write")
	seed := flag.Uint64("seed", 1, "random seed")
	root := flag.String("root", ".", "repository top (for testdata/data)")
	flag.Parse()
	c, err := bulkgen.LoadCorpus(*root)
	if err != nil {
		fmt.Fprintln(os.Stderr, "bulkgen:", err)
		os.Exit(1)
	}
	var st any
	switch *kind {
	case "import":
		st, err = bulkgen.WriteImport(os.Stdout, c, *lines, *seed)
	case "ingest":
		st, err = bulkgen.WriteIngest(os.Stdout, c, *lines, *seed)
	default:
		err = fmt.Errorf("unknown -kind %q: import or ingest", *kind)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "bulkgen:", err)
		os.Exit(1)
	}
	fmt.Fprintf(os.Stderr, "bulkgen: %d lines: %+v\n", *lines, st)
}
