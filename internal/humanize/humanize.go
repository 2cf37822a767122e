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

// Until is a short time left, rounded up so that a fresh 7-day TTL reads
// "7d", not "6d": "45m", "13h" (up to two days), "7d". Zero or less is
// "0m".
func Until(d time.Duration) string {
	ceil := func(d, unit time.Duration) int { return int((d + unit - 1) / unit) }
	switch {
	case d <= 0:
		return "0m"
	case d <= time.Hour:
		return fmt.Sprintf("%dm", ceil(d, time.Minute))
	case d <= 48*time.Hour:
		return fmt.Sprintf("%dh", ceil(d, time.Hour))
	default:
		return fmt.Sprintf("%dd", ceil(d, 24*time.Hour))
	}
}
