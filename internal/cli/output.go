package cli

import (
	"bytes"
	"fmt"
	"io"
	"strconv"
	"text/tabwriter"

	"github.com/odekmem/odekmem/internal/scan"
)

// The one terminal sanitiser. Every byte a verb writes to stdout passes
// through exactly one of these writers (run installs it), so no verb can
// forget to clean a field: stored text, link kinds, quarantine reasons,
// user-model values, error messages and ids all reach the terminal through
// the same code.
//
// termWriter (text output): per line, secrets are redacted and
// scan.Visible removes C0/C1 controls and escape sequences (CSI, OSC incl.
// OSC 52 clipboard writes, DCS, …) and spells out invisible and bidi
// characters as ⟨U+XXXX⟩. Newline and tab stay.
//
// jsonsafe.Writer (--json; memcore's Export writes through it too): JSON
// already escapes C0 controls; it also escapes DEL, C1 controls, bidi and
// other format characters and line separators as \uXXXX, so the bytes are
// safe on a terminal and the decoded JSON is unchanged.

type termWriter struct {
	w   io.Writer
	buf []byte
	err error
	// own is set for text built only from odekmem's own constants (the
	// help overview): it is still made visible, but not searched for
	// credentials, which no constant holds.
	own bool
}

func newTermWriter(w io.Writer) *termWriter { return &termWriter{w: w} }

func (t *termWriter) Write(p []byte) (int, error) {
	t.buf = append(t.buf, p...)
	for {
		i := bytes.IndexByte(t.buf, '\n')
		if i < 0 {
			break
		}
		t.emit(t.buf[:i+1])
		t.buf = t.buf[i+1:]
	}
	if len(t.buf) > 64<<10 { // a very long line: clean what we have
		t.emit(t.buf)
		t.buf = nil
	}
	return len(p), t.err
}

func (t *termWriter) emit(line []byte) {
	if t.err != nil {
		return
	}
	if t.own {
		_, t.err = io.WriteString(t.w, scan.Visible(string(line)))
		return
	}
	_, t.err = io.WriteString(t.w, safeText(string(line)))
}

// Flush writes a last unterminated line.
func (t *termWriter) Flush() error {
	if len(t.buf) > 0 {
		t.emit(t.buf)
		t.buf = nil
	}
	return t.err
}

// termWidth is the width help text is wrapped to.
func termWidth(env Env) int {
	w := env.Width
	if w <= 0 && env.Getenv != nil {
		w, _ = strconv.Atoi(env.Getenv("COLUMNS"))
	}
	if w <= 0 {
		w = 80
	}
	if w < 40 {
		w = 40
	}
	if w > 120 {
		w = 120 // long lines are hard to read even on a wide terminal
	}
	return w
}

// table starts a table on stdout with its header row (tab-separated
// columns, two spaces apart); the caller writes the rows and flushes.
func (c *ctx) table(header string) *tabwriter.Writer {
	tw := tabwriter.NewWriter(c.env.Stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, header)
	return tw
}
