package humanize

import (
	"testing"
	"time"
)

func TestAge(t *testing.T) {
	for _, c := range []struct {
		d    time.Duration
		want string
	}{
		{-time.Hour, "now"}, {0, "now"}, {59 * time.Second, "now"}, {time.Minute, "1m"}, {59*time.Minute + 59*time.Second, "59m"},
		{time.Hour, "1h"}, {47*time.Hour + 59*time.Minute, "47h"}, {48 * time.Hour, "2d"}, {364 * 24 * time.Hour, "364d"}, {400 * 24 * time.Hour, "1.1y"},
	} {
		if got := Age(c.d, "now"); got != c.want {
			t.Errorf("Age(%v) = %q, want %q", c.d, got, c.want)
		}
	}
	if got := Age(time.Second, "just now"); got != "just now" {
		t.Errorf("Age(1s, just now) = %q", got)
	}
}

func TestUntilRoundsUp(t *testing.T) {
	for _, c := range []struct {
		d    time.Duration
		want string
	}{
		{7*24*time.Hour - time.Second, "7d"}, {7 * 24 * time.Hour, "7d"}, {6*24*time.Hour + time.Hour, "7d"}, {49 * time.Hour, "3d"},
		{48 * time.Hour, "48h"}, {90 * time.Minute, "2h"}, {time.Hour, "60m"}, {30 * time.Second, "1m"}, {0, "0m"},
	} {
		if got := Until(c.d); got != c.want {
			t.Errorf("Until(%v) = %q, want %q", c.d, got, c.want)
		}
	}
}

func TestBytes(t *testing.T) {
	for n, want := range map[int64]string{0: "0 B", 1023: "1023 B", 1536: "1.5 KiB", 98 << 20: "98.0 MiB", 5 << 29: "2.50 GiB", -2048: "-2.0 KiB"} {
		if got := Bytes(n); got != want {
			t.Errorf("Bytes(%d) = %q, want %q", n, got, want)
		}
	}
}

func TestCompaction(t *testing.T) {
	for _, c := range []struct {
		before, after, reclaimed int64
		expired, vectors         int
		want                     string
	}{
		{2048, 1024, 1024, 0, 0, "reclaimed 1.0 KiB (2.0 KiB → 1.0 KiB)"},
		{1024, 2048, -1024, 1, 1, "dropped 1 expired quarantine entry; grew by 1.0 KiB: the vector cache was rebuilt (1.0 KiB → 2.0 KiB, 1 vector)"},
		{1024, 1024, 0, 3, 0, "dropped 3 expired quarantine entries; same size (1.0 KiB)"},
	} {
		if got := Compaction(c.before, c.after, c.reclaimed, c.expired, c.vectors); got != c.want {
			t.Errorf("Compaction(%d, %d, %d, %d, %d) = %q, want %q", c.before, c.after, c.reclaimed, c.expired, c.vectors, got, c.want)
		}
	}
}
