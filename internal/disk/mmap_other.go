//go:build !unix

package disk

// MapFile is ReadFile where files are not mapped.
func (d *Dir) MapFile(rel string) ([]byte, Sig, error) { return d.ReadFile(rel) }
