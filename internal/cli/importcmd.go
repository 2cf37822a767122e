package cli

import (
	"fmt"
	"io"
	"os"

	"github.com/odekmem/odekmem/internal/procstart"
	"github.com/odekmem/odekmem/memcore"
)

func cmdImport(c *ctx) error {
	procstart.RestoreGC() // a bulk job: garbage from its input must be collected as it goes (procstart.DeferGC)
	if err := needArgs(c, 1, "import FILE|-"); err != nil {
		return err
	}
	var r io.Reader = c.env.Stdin
	var size int64
	name := "stdin"
	if c.p.pos[0] != "-" {
		f, err := os.Open(c.p.pos[0])
		if err != nil {
			return fmt.Errorf("import: %w", err)
		}
		defer f.Close()
		if fi, err := f.Stat(); err == nil {
			if !fi.Mode().IsRegular() {
				return fmt.Errorf("import: %s is not a regular file", c.p.pos[0])
			}
			size = fi.Size()
		}
		r, name = f, c.p.pos[0]
	}
	bar := progressBar(c, "import", size)
	bar.committed = 0
	res, err := c.store.Import(c, r, memcore.ImportOptions{AsUntrusted: c.p.bools["as-untrusted"], Source: name,
		Progress: func(p memcore.ImportProgress) { bar.committed = p.Committed; bar.set(p.Lines, p.Bytes) }})
	bar.done()
	if err != nil {
		return err
	}
	for i, e := range res.Errors {
		res.Errors[i] = plainJSON(e)
	}
	if c.json {
		if err := c.emitJSON(res); err != nil {
			return err
		}
	} else {
		c.out("imported %d live, %d quarantined, %d links, %d pending, %d user-model values; %d already present, %d refreshed an existing atom\n",
			res.Live, res.Quarantined, res.Links, res.Pending, res.ModelValues, res.Skipped, res.Refreshed)
		switch {
		case c.p.bools["as-untrusted"]:
			c.out("trusted records from this file: 0 (--as-untrusted: every atom is in quarantine, user-model values wait in pending)\n")
		case res.Trusted > 0:
			c.out("trusted records from this file: %d (%d live or refreshed atoms, %d user-model values), taken as the file claims; use --as-untrusted to review a file you did not write\n",
				res.Trusted, res.Trusted-res.ModelValues, res.ModelValues)
		default:
			c.out("trusted records from this file: 0\n")
		}
	}
	if res.Evicted > 0 {
		c.warn("evicted %d older atoms to stay under the size cap", res.Evicted)
	}
	for _, e := range res.Errors {
		c.warn("import: %s", e)
	}
	if res.ErrorCount > len(res.Errors) {
		c.warn("import: … and %d more", res.ErrorCount-len(res.Errors))
	}
	if res.ErrorCount > 0 {
		return fmt.Errorf("import: %d records could not be imported", res.ErrorCount)
	}
	return nil
}
