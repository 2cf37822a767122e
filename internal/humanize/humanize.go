// Package humanize formats what odekmem's front ends show people and
// models in a few characters.
package humanize

import (
	"fmt"
	"time"
)

// Age is a short age, the one rule of every front end: "5m", "3h" (up to
// two days), "12d", "1.2y" (from a year). An age under a minute is now:
// the caller names it ("now" in a table, "just now" in prose). A negative
// age (a clock set back) counts as under a minute.
func Age(d time.Duration, now string) string {
	const day = 24 * time.Hour
	switch {
	case d < time.Minute:
		return now
	case d < time.Hour:
		return fmt.Sprintf("%dm", int(d.Minutes()))
	case d < 48*time.Hour:
		return fmt.Sprintf("%dh", int(d.Hours()))
	case d < 365*day:
		return fmt.Sprintf("%dd", int(d/day))
	default:
		return fmt.Sprintf("%.1fy", float64(d)/float64(365*day))
	}
}

// Bytes is a byte count in binary units: "512 B", "1.5 KiB", "98.0 MiB",
// "1.25 GiB"; a negative count keeps its sign.
func Bytes(n int64) string {
	const k = 1024
	neg := ""
	if n < 0 {
		neg, n = "-", -n
	}
	switch {
	case n < k:
		return fmt.Sprintf("%s%d B", neg, n)
	case n < k*k:
		return fmt.Sprintf("%s%.1f KiB", neg, float64(n)/k)
	case n < k*k*k:
		return fmt.Sprintf("%s%.1f MiB", neg, float64(n)/(k*k))
	default:
		return fmt.Sprintf("%s%.2f GiB", neg, float64(n)/(k*k*k))
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

// Compaction says what a compaction did in words, for people (the TUI and
// the CLI print it; --json carries memcore.CompactResult's numbers): the
// expired quarantine entries it dropped first, then the size change and
// why, for example "dropped 1 expired quarantine entry; grew by 188.0 KiB:
// the vector cache was rebuilt (1004.0 KiB → 1.2 MiB, 205 vectors)" or
// "reclaimed 12.0 KiB (1.0 MiB → 1016.0 KiB)". The arguments are
// CompactResult's fields.
func Compaction(before, after, reclaimed int64, expired, vectors int) string {
	var out string
	switch {
	case reclaimed > 0:
		out = fmt.Sprintf("reclaimed %s (%s → %s)", Bytes(reclaimed), Bytes(before), Bytes(after))
	case reclaimed < 0:
		noun := "vectors"
		if vectors == 1 {
			noun = "vector"
		}
		out = fmt.Sprintf("grew by %s: the vector cache was rebuilt (%s → %s, %d %s)",
			Bytes(-reclaimed), Bytes(before), Bytes(after), vectors, noun)
	default:
		out = fmt.Sprintf("same size (%s)", Bytes(after))
	}
	switch {
	case expired == 1:
		out = "dropped 1 expired quarantine entry; " + out
	case expired > 1:
		out = fmt.Sprintf("dropped %d expired quarantine entries; %s", expired, out)
	}
	return out
}
