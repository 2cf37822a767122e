package main

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// TestRepositoryStandsAlone fails when a tracked file refers to the
// ../shared directory that sits beside the repository on the developers'
// machines: a clone with nothing beside it must build, test and run every
// documented command.
func TestRepositoryStandsAlone(t *testing.T) {
	out, err := exec.Command("git", "ls-files").Output()
	if err != nil {
		t.Skip("not a git checkout:", err)
	}
	for _, f := range strings.Fields(string(out)) {
		if strings.HasPrefix(f, "testdata/data/") || strings.HasSuffix(f, "repo_test.go") {
			continue
		}
		b, err := os.ReadFile(f)
		if err != nil {
			continue // deleted in the work tree
		}
		if strings.Contains(string(b), "../shared") || strings.Contains(string(b), `"..", "shared"`) ||
			strings.Contains(string(b), `"..", "..", "..", "shared"`) {
			t.Errorf("%s refers to ../shared; copy what it needs into testdata/ instead", f)
		}
	}
}
