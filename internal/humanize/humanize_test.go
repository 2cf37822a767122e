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
		{time.Hour, "1h"}, {47*time.Hour + 59*time.Minute, "47h"}, {48 * time.Hour, "2d"}, {400 * 24 * time.Hour, "400d"},
	} {
		if got := Age(c.d, "now"); got != c.want {
			t.Errorf("Age(%v) = %q, want %q", c.d, got, c.want)
		}
	}
	if got := Age(time.Second, "just now"); got != "just now" {
		t.Errorf("Age(1s, just now) = %q", got)
	}
}
