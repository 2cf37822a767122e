package cli

import (
	"bytes"
	"fmt"
	"io"
	"strconv"
	"text/tabwriter"
	"unicode"
	"unicode/utf8"
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
// jsonWriter (--json and export): JSON already escapes C0 controls; this
// also escapes DEL, C1 controls, bidi and other format characters and line
// separators as \uXXXX, so the bytes are safe on a terminal and the
// decoded JSON is unchanged.

type termWriter struct {
	w   io.Writer
	buf []byte
	err error
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

type jsonWriter struct {
	w    io.Writer
	tail []byte // an incomplete UTF-8 sequence from the last Write
	err  error
}

func newJSONWriter(w io.Writer) *jsonWriter { return &jsonWriter{w: w} }

// jsonUnsafe reports runes a terminal may act on or that hide text.
func jsonUnsafe(r rune) bool {
	return r == 0x7f || (r >= 0x80 && r <= 0x9f) || r == 0x2028 || r == 0x2029 ||
		unicode.Is(unicode.Cf, r) || unicode.Is(unicode.Variation_Selector, r) ||
		(r >= 0xE0000 && r <= 0xE007F)
}

func (j *jsonWriter) Write(p []byte) (int, error) {
	if j.err != nil {
		return 0, j.err
	}
	data := p
	if len(j.tail) > 0 {
		data = append(j.tail, p...)
		j.tail = nil
	}
	var out []byte
	start := 0
	for i := 0; i < len(data); {
		c := data[i]
		if c < utf8.RuneSelf && c != 0x7f {
			i++
			continue
		}
		if !utf8.FullRune(data[i:]) {
			j.tail = append([]byte(nil), data[i:]...)
			data = data[:i]
			break
		}
		r, n := utf8.DecodeRune(data[i:])
		if jsonUnsafe(r) {
			out = append(out, data[start:i]...)
			out = appendUEscape(out, r)
			start = i + n
		}
		i += n
	}
	if start == 0 && out == nil {
		_, j.err = j.w.Write(data)
	} else {
		out = append(out, data[start:]...)
		_, j.err = j.w.Write(out)
	}
	return len(p), j.err
}

func appendUEscape(out []byte, r rune) []byte {
	if r > 0xFFFF {
		r -= 0x10000
		out = append(out, fmt.Sprintf(`\u%04x\u%04x`, 0xD800+(r>>10), 0xDC00+(r&0x3FF))...)
		return out
	}
	return append(out, `\u`+fmt.Sprintf("%04x", r)...)
}

// Flush writes an incomplete trailing sequence as is (it cannot be a
// control character).
func (j *jsonWriter) Flush() error {
	if len(j.tail) > 0 && j.err == nil {
		_, j.err = j.w.Write(j.tail)
		j.tail = nil
	}
	return j.err
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
