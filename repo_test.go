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

// frontEnds are the packages that ship odekmem's surfaces: they use the
// same API an agent author gets (memcore, memcore/review) and helpers
// that sit beside it, never the mechanisms below memcore.
var frontEnds = []string{".", "./tui", "./views", "./keymap", "./theme", "./internal/cli", "./internal/mcpserver",
	"./internal/agenthook", "./internal/serve", "./internal/agentsetup", "./internal/config", "./cmd/odekmem-hook"}

// belowMemcore are memcore's own mechanisms: the store's files, the vector
// state, the worker pool and the index engines.
var belowMemcore = []string{"internal/disk", "internal/index", "internal/par", "internal/vindex"}

// TestFrontEndsUseThePublicAPI fails when a front end imports one of
// memcore's mechanisms directly: if a front end needs something, the
// public API grows.
func TestFrontEndsUseThePublicAPI(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go list")
	}
	out, err := exec.Command("go", append([]string{"list", "-f", "{{.ImportPath}}: {{join .Imports \" \"}}"}, frontEnds...)...).CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	const mod = "github.com/odekmem/odekmem/"
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		pkg, imports, _ := strings.Cut(line, ": ")
		for _, imp := range strings.Fields(imports) {
			for _, below := range belowMemcore {
				if imp == mod+below {
					t.Errorf("%s imports %s, below memcore's public API", pkg, below)
				}
			}
		}
	}
}
