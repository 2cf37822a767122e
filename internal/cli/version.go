package cli

import (
	"fmt"
	"runtime/debug"
	"strings"
)

// Version, when set at link time (-ldflags "-X …/internal/cli.Version=…"),
// is the version odekmem reports; otherwise the build information the Go
// toolchain stamps into the binary is used.
var Version = ""

// version is what --version, `odekmem version` and the MCP server report:
// the module version (a release tag, or the pseudo-version go build derives
// from the commit), then the commit, its time and whether the tree had
// uncommitted changes, when the binary was built from a checkout.
func version() string {
	if Version != "" {
		return Version
	}
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "(unknown build)"
	}
	return formatVersion(bi)
}

func formatVersion(bi *debug.BuildInfo) string {
	v := bi.Main.Version
	if v == "" || v == "(devel)" {
		v = "devel" // built from a checkout without a version tag
	}
	var rev, at string
	modified := false
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.time":
			at = s.Value
		case "vcs.modified":
			modified = s.Value == "true"
		}
	}
	var parts []string
	if rev != "" {
		parts = append(parts, "commit "+rev[:min(len(rev), 12)])
	}
	if at != "" {
		parts = append(parts, at)
	}
	if modified {
		parts = append(parts, "with uncommitted changes")
	}
	if bi.GoVersion != "" {
		parts = append(parts, bi.GoVersion)
	}
	if len(parts) == 0 {
		return v
	}
	return fmt.Sprintf("%s (%s)", v, strings.Join(parts, ", "))
}
