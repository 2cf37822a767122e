package main

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// TestRepositoryStandsAlone fails when a tracked file refers to the
// shared/ directory that sits beside the repository on the developers'
// machines: a clone with nothing beside it must build, test and run every
// documented command.
// sibling is the directory beside the repository, spelled out of parts so
// that this file does not refer to it itself.
var (
	sibling    = strings.Join([]string{"..", "sha" + "red"}, "/")
	sharedRefs = []string{sibling, `"..", "` + sibling[3:] + `"`}
)

func TestRepositoryStandsAlone(t *testing.T) {
	out, err := exec.Command("git", "ls-files").Output()
	if err != nil {
		t.Skip("not a git checkout:", err)
	}
	for _, f := range strings.Fields(string(out)) {
		if strings.HasPrefix(f, "testdata/data/") {
			continue
		}
		b, err := os.ReadFile(f)
		if err != nil {
			continue // deleted in the work tree
		}
		for _, ref := range sharedRefs {
			if strings.Contains(string(b), ref) {
				t.Errorf("%s refers to the sibling directory %s; copy what it needs into testdata/ instead", f, sibling)
				break
			}
		}
	}
}
