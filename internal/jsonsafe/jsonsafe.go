// Package jsonsafe makes JSON output safe on a terminal without changing
// what it decodes to: the CLI's --json output and memcore's export pass
// through its Writer.
package jsonsafe

import (
	"fmt"
	"io"
	"unicode"
	"unicode/utf8"
)

// Writer escapes, in the JSON it passes on, the runes a terminal may act on
// or that hide text (Unsafe) as \uXXXX. JSON already escapes C0 controls;
// the decoded JSON is unchanged.
type Writer struct {
	w    io.Writer
	tail []byte // an incomplete UTF-8 sequence from the last Write
	err  error
}

// NewWriter returns a Writer passing the escaped JSON on to w. Call Flush
// after the last Write.
func NewWriter(w io.Writer) *Writer { return &Writer{w: w} }

// Unsafe reports runes a terminal may act on or that hide text.
func Unsafe(r rune) bool {
	return r == 0x7f || (r >= 0x80 && r <= 0x9f) || r == 0x2028 || r == 0x2029 ||
		unicode.Is(unicode.Cf, r) || unicode.Is(unicode.Variation_Selector, r) ||
		(r >= 0xE0000 && r <= 0xE007F)
}

func (j *Writer) Write(p []byte) (int, error) {
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
		if Unsafe(r) {
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
func (j *Writer) Flush() error {
	if len(j.tail) > 0 && j.err == nil {
		_, j.err = j.w.Write(j.tail)
		j.tail = nil
	}
	return j.err
}
