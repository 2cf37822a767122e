//go:build unix

package disk

import "syscall"

// mapMin is the size from which MapFile maps instead of reading: a small
// cache is cheaper to read, and tests open thousands of small stores.
const mapMin = 1 << 20

// MapFile is ReadFile for a large file that is used in place: a private
// copy-on-write mapping (what the process writes into it never reaches
// the file) of the version read. The mapping is never unmapped: strings
// and slices taken from it may live as long as the process (a store's
// indexes keep them). A writer replaces the file by rename, never in
// place, so the version mapped stays as it was.
func (d *Dir) MapFile(rel string) ([]byte, Sig, error) {
	f, err := openNoFollow(d.Abs(rel))
	if err != nil {
		return nil, Sig{}, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, Sig{}, err
	}
	if fi.Size() < mapMin || fi.Size() != int64(int(fi.Size())) {
		return d.ReadFile(rel)
	}
	data, err := syscall.Mmap(int(f.Fd()), 0, int(fi.Size()), syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_PRIVATE)
	if err != nil {
		return d.ReadFile(rel)
	}
	return data, sigOf(fi), nil
}
