package memcore_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/odekmem/odekmem/memcore"
)

// TestExportIsTerminalSafe: stored text with a C1 control (CSI), a bidi
// override and DEL leaves Export (and ExportFile) only as \u escapes, so
// `cat` of an export cannot drive the terminal, and the import of that
// output gives back exactly the stored text.
func TestExportIsTerminalSafe(t *testing.T) {
	ctx := context.Background()
	st := hOpen(t, nil, nil)
	hostile := "page said \u009b31m red \u202egnp.exe\u202c and \x7f end"
	r, err := st.Add(ctx, memcore.AddRequest{Text: hostile, Source: memcore.SourceWeb})
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := st.Export(ctx, &out); err != nil {
		t.Fatal(err)
	}
	for _, raw := range []string{"\u009b", "\u202e", "\x7f"} {
		if bytes.Contains(out.Bytes(), []byte(raw)) {
			t.Fatalf("export carries %q raw:\n%s", raw, out.String())
		}
	}
	if !strings.Contains(out.String(), `\u009b`) || !strings.Contains(out.String(), `\u202e`) {
		t.Fatalf("export lacks the escapes:\n%s", out.String())
	}
	path := filepath.Join(t.TempDir(), "export.jsonl")
	if err := memcore.ExportFile(st, ctx, path); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(path); err != nil || !bytes.Equal(b, out.Bytes()) {
		t.Fatalf("ExportFile wrote something else (%v):\n%s", err, b)
	}
	st2 := hOpen(t, nil, nil)
	if _, err := st2.Import(ctx, &out, memcore.ImportOptions{}); err != nil {
		t.Fatal(err)
	}
	_, q, err := st2.Get(ctx, r.Atom.ID)
	if err != nil || q == nil || q.Text != r.Atom.Text {
		t.Fatalf("imported %+v %v; want the text %q", q, err, r.Atom.Text)
	}
}
