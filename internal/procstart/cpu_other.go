//go:build !unix

package procstart

import "time"

func cpuTime() time.Duration { return 0 }
