// Package jsonl reads line-oriented input (JSONL exports, transcripts)
// with constant memory: every line is bounded, a longer one is skipped and
// reported by number, and a byte-order mark never hides what a line is.
package jsonl

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
)

// MaxLine is the default bound on one line: 1 MiB.
const MaxLine = 1 << 20

// ErrLineTooLong is returned (wrapped, with the line number) for a line
// longer than the reader's bound; the reader has skipped it and can go on.
var ErrLineTooLong = errors.New("line too long")

var bom = []byte{0xEF, 0xBB, 0xBF}

// Reader yields lines without their terminator ("\n" or "\r\n") and with
// surrounding white space and any leading byte-order marks removed.
type Reader struct {
	r     *bufio.Reader
	max   int
	line  int
	bytes int64
}

// NewReader reads from r with lines of at most max bytes (0 = MaxLine).
func NewReader(r io.Reader, max int) *Reader {
	if max <= 0 {
		max = MaxLine
	}
	return &Reader{r: bufio.NewReaderSize(r, min(max+2, 1<<20)), max: max}
}

// Line is the number of the line Next returned last (1-based).
func (l *Reader) Line() int { return l.line }

// Bytes is how many bytes have been read so far.
func (l *Reader) Bytes() int64 { return l.bytes }

// Next returns the next line. The slice is valid until the next call. At
// the end it returns io.EOF; a line over the bound returns an error
// wrapping ErrLineTooLong after skipping it, and reading may continue.
func (l *Reader) Next() ([]byte, error) {
	var buf []byte
	l.line++
	for {
		chunk, err := l.r.ReadSlice('\n')
		l.bytes += int64(len(chunk))
		if len(buf)+len(chunk) > l.max+2 { // +2: the terminator
			for errors.Is(err, bufio.ErrBufferFull) {
				chunk, err = l.r.ReadSlice('\n')
				l.bytes += int64(len(chunk))
			}
			if err != nil && err != io.EOF {
				return nil, fmt.Errorf("line %d: %w", l.line, err)
			}
			return nil, fmt.Errorf("line %d: %w (over %d bytes); skipped", l.line, ErrLineTooLong, l.max)
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			buf = append(buf, chunk...)
			continue
		}
		if buf != nil {
			buf = append(buf, chunk...)
			chunk = buf
		}
		if err == io.EOF && len(chunk) == 0 {
			l.line--
			return nil, io.EOF
		}
		if err != nil && err != io.EOF {
			return nil, fmt.Errorf("line %d: %w", l.line, err)
		}
		chunk = bytes.TrimSpace(chunk)
		for bytes.HasPrefix(chunk, bom) {
			chunk = bytes.TrimSpace(chunk[len(bom):])
		}
		return chunk, nil
	}
}
