package cli

import (
	"runtime/debug"
	"testing"
)

func TestFormatVersion(t *testing.T) {
	vcs := []debug.BuildSetting{{Key: "vcs.revision", Value: "fa15e291767634614f4dfce6859bbe260f305db1"},
		{Key: "vcs.time", Value: "2026-05-01T10:00:00Z"}, {Key: "vcs.modified", Value: "true"}}
	cases := []struct {
		bi   debug.BuildInfo
		want string
	}{
		{debug.BuildInfo{GoVersion: "go1.26.0", Main: debug.Module{Version: "v1.2.0"}}, "v1.2.0 (go1.26.0)"},
		{debug.BuildInfo{GoVersion: "go1.26.0", Main: debug.Module{Version: "(devel)"}}, "devel (go1.26.0)"},
		{debug.BuildInfo{GoVersion: "go1.26.0", Main: debug.Module{Version: "v0.0.0-20260501100000-fa15e2917676+dirty"}, Settings: vcs},
			"v0.0.0-20260501100000-fa15e2917676+dirty (commit fa15e2917676, 2026-05-01T10:00:00Z, with uncommitted changes, go1.26.0)"},
	}
	for _, tc := range cases {
		if got := formatVersion(&tc.bi); got != tc.want {
			t.Errorf("got %q, want %q", got, tc.want)
		}
	}
}
