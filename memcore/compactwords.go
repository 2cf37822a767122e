package memcore

import "fmt"

// String says what a compaction did in words, for people (the TUI and the
// CLI print it; --json carries the numbers): the expired quarantine
// entries it dropped first, then the size change and why, for example
// "dropped 1 expired quarantine entry; grew by 188.0 KiB: the vector cache
// was rebuilt (1004.0 KiB → 1.2 MiB, 205 vectors)" or "reclaimed 12.0 KiB
// (1.0 MiB → 1016.0 KiB)".
func (r CompactResult) String() string {
	var out string
	switch {
	case r.Reclaimed > 0:
		out = fmt.Sprintf("reclaimed %s (%s → %s)", humanBytes(r.Reclaimed), humanBytes(r.Before), humanBytes(r.After))
	case r.Reclaimed < 0:
		vectors := "vectors"
		if r.Vectors == 1 {
			vectors = "vector"
		}
		out = fmt.Sprintf("grew by %s: the vector cache was rebuilt (%s → %s, %d %s)",
			humanBytes(-r.Reclaimed), humanBytes(r.Before), humanBytes(r.After), r.Vectors, vectors)
	default:
		out = fmt.Sprintf("same size (%s)", humanBytes(r.After))
	}
	switch {
	case r.Expired == 1:
		out = "dropped 1 expired quarantine entry; " + out
	case r.Expired > 1:
		out = fmt.Sprintf("dropped %d expired quarantine entries; %s", r.Expired, out)
	}
	return out
}
