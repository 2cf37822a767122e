package lockfile

import (
	"encoding/binary"
	"time"
)

// CheckState is what the lock file records about the last full check of
// a store (a sweep of every chunk): when it ran, and the state of the
// chunk directory (inode, modification and change times in nanoseconds,
// see disk.DirState) that check, or a later write of odekmem's, left.
// Another program's change to that directory shows as a different state.
type CheckState struct {
	At           time.Time
	Ino          uint64
	Mtime, Ctime int64
}

// The check state follows the holder line: a magic word, the time, the
// directory state and a checksum of those.
const (
	checkOff   = lockHolderOff + lockHolderLen
	checkLen   = 48
	checkMagic = 0x314b43484b444f // "ODKHCK1"
)

// CheckState reads the state the last full check recorded (false when
// none is recorded, or the record is damaged).
func (l *Lock) CheckState() (CheckState, bool) {
	var b [checkLen]byte
	if n, _ := l.f.ReadAt(b[:], checkOff); n != checkLen {
		return CheckState{}, false
	}
	le := binary.LittleEndian
	if le.Uint64(b[0:]) != checkMagic || le.Uint64(b[40:]) != checkSum(b[:40]) {
		return CheckState{}, false
	}
	return CheckState{
		At:  time.Unix(0, int64(le.Uint64(b[8:]))),
		Ino: le.Uint64(b[16:]), Mtime: int64(le.Uint64(b[24:])), Ctime: int64(le.Uint64(b[32:])),
	}, true
}

// SetCheckState records st; the caller holds the exclusive lock. Like the
// generation it needs no fsync: a lost record only makes the next opener
// check everything.
func (l *Lock) SetCheckState(st CheckState) {
	var b [checkLen]byte
	le := binary.LittleEndian
	le.PutUint64(b[0:], checkMagic)
	le.PutUint64(b[8:], uint64(st.At.UnixNano()))
	le.PutUint64(b[16:], st.Ino)
	le.PutUint64(b[24:], uint64(st.Mtime))
	le.PutUint64(b[32:], uint64(st.Ctime))
	le.PutUint64(b[40:], checkSum(b[:40]))
	l.f.WriteAt(b[:], checkOff)
}

// ClearCheckState makes the next opener check everything.
func (l *Lock) ClearCheckState() {
	var b [checkLen]byte
	l.f.WriteAt(b[:], checkOff)
}

func checkSum(b []byte) uint64 {
	h := uint64(14695981039346656037)
	for _, c := range b {
		h = (h ^ uint64(c)) * 1099511628211
	}
	return h
}
