package main

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
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

// publicPackages are the packages an agent author can import: everything
// they export is bound by semver.
var publicPackages = []string{"memcore", "memcore/review", "memcore/llm", "memcore/openai"}

// maxPublicNames bounds the importable surface (issue 23: at most 120).
// Lower it when a cut lands; raise it only with a reason in the commit.
const maxPublicNames = 163

// publicNames lists the importable names of the package in dir: its
// exported package-level identifiers and the exported methods of its
// exported types (interface methods included), as "Type.Method". Exported
// struct fields are not counted.
func publicNames(t *testing.T, dir string) []string {
	fset := token.NewFileSet()
	pkgs, err := parser.ParseDir(fset, dir, func(fi os.FileInfo) bool { return !strings.HasSuffix(fi.Name(), "_test.go") }, 0)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, p := range pkgs {
		for _, f := range p.Files {
			for _, d := range f.Decls {
				switch d := d.(type) {
				case *ast.FuncDecl:
					if !d.Name.IsExported() {
						continue
					}
					if d.Recv == nil {
						names = append(names, d.Name.Name)
						continue
					}
					typ := d.Recv.List[0].Type
					if star, ok := typ.(*ast.StarExpr); ok {
						typ = star.X
					}
					if id, ok := typ.(*ast.Ident); ok && id.IsExported() {
						names = append(names, id.Name+"."+d.Name.Name)
					}
				case *ast.GenDecl:
					for _, spec := range d.Specs {
						switch s := spec.(type) {
						case *ast.TypeSpec:
							if !s.Name.IsExported() {
								continue
							}
							names = append(names, s.Name.Name)
							if it, ok := s.Type.(*ast.InterfaceType); ok {
								for _, m := range it.Methods.List {
									for _, n := range m.Names {
										if n.IsExported() {
											names = append(names, s.Name.Name+"."+n.Name)
										}
									}
								}
							}
						case *ast.ValueSpec:
							for _, n := range s.Names {
								if n.IsExported() {
									names = append(names, n.Name)
								}
							}
						}
					}
				}
			}
		}
	}
	sort.Strings(names)
	return names
}

// TestPublicSurface fails when the importable surface grows past
// maxPublicNames, so that it cannot grow silently: a front end that needs
// something gets a general method, not one more name (docs/library.md).
func TestPublicSurface(t *testing.T) {
	total := 0
	var all []string
	for _, pkg := range publicPackages {
		names := publicNames(t, filepath.FromSlash(pkg))
		t.Logf("%s: %d", pkg, len(names))
		total += len(names)
		for _, n := range names {
			all = append(all, pkg+"."+n)
		}
	}
	t.Logf("importable names: %d", total)
	if total > maxPublicNames {
		t.Errorf("%d importable names, more than %d:\n%s", total, maxPublicNames, strings.Join(all, "\n"))
	}
}
