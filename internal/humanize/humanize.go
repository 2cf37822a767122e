// Package humanize formats what odekmem's front ends show people and
// models in a few characters.
package humanize

import (
	"fmt"
	"time"
)

// Age is a short age: "5m", "3h" (up to two days), "12d". An age under a
// minute is now: the caller names it ("now" in a table, "just now" in
// prose). A negative age (a clock set back) counts as under a minute.
func Age(d time.Duration, now string) string {
	switch {
	case d < time.Minute:
		return now
	case d < time.Hour:
		return fmt.Sprintf("%dm", int(d.Minutes()))
	case d < 48*time.Hour:
		return fmt.Sprintf("%dh", int(d.Hours()))
	default:
		return fmt.Sprintf("%dd", int(d.Hours()/24))
	}
}
