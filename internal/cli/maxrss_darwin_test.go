package cli_test

import (
	"os"
	"syscall"
)

// maxRSS is a finished process's peak resident set in bytes (macOS reports
// ru_maxrss in bytes).
func maxRSS(ps *os.ProcessState) (int64, bool) {
	ru, ok := ps.SysUsage().(*syscall.Rusage)
	if !ok {
		return 0, false
	}
	return ru.Maxrss, true
}
