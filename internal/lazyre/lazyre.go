// Package lazyre is a regular expression compiled on first use, so that a
// package-level pattern costs nothing at process start: a process that
// never matches it (odekmem version, help, a search) never compiles it.
// Regexp has the matching methods of *regexp.Regexp, so a declaration
// changes from regexp.MustCompile to lazyre.New and its uses stay as they
// are.
package lazyre

import (
	"io"
	"regexp"
	"sync"
)

// Regexp is a pattern compiled by the first method call (MustCompile: an
// invalid pattern panics there, as it would have at init). It is safe for
// concurrent use.
type Regexp struct {
	expr string
	src  func() string // computes expr on first use (NewFrom)
	once sync.Once
	re   *regexp.Regexp
}

// New returns expr, to be compiled on first use.
func New(expr string) *Regexp { return &Regexp{expr: expr} }

// NewFrom returns the pattern src computes, computed and compiled on
// first use (for a pattern built by a function, such as one folded to
// match a normalised view).
func NewFrom(src func() string) *Regexp { return &Regexp{src: src} }

func (l *Regexp) source() string {
	if l.src != nil {
		return l.src()
	}
	return l.expr
}

// Regexp is the compiled pattern.
func (l *Regexp) Regexp() *regexp.Regexp { return l.get() }

func (l *Regexp) get() *regexp.Regexp {
	l.once.Do(func() { l.re = regexp.MustCompile(l.source()) })
	return l.re
}

// Expand is regexp.Regexp.Expand.
func (l *Regexp) Expand(dst []byte, template []byte, src []byte, match []int) []byte {
	return l.get().Expand(dst, template, src, match)
}

// ExpandString is regexp.Regexp.ExpandString.
func (l *Regexp) ExpandString(dst []byte, template string, src string, match []int) []byte {
	return l.get().ExpandString(dst, template, src, match)
}

// Find is regexp.Regexp.Find.
func (l *Regexp) Find(b []byte) []byte { return l.get().Find(b) }

// FindAll is regexp.Regexp.FindAll.
func (l *Regexp) FindAll(b []byte, n int) [][]byte { return l.get().FindAll(b, n) }

// FindAllIndex is regexp.Regexp.FindAllIndex.
func (l *Regexp) FindAllIndex(b []byte, n int) [][]int { return l.get().FindAllIndex(b, n) }

// FindAllString is regexp.Regexp.FindAllString.
func (l *Regexp) FindAllString(s string, n int) []string { return l.get().FindAllString(s, n) }

// FindAllStringIndex is regexp.Regexp.FindAllStringIndex.
func (l *Regexp) FindAllStringIndex(s string, n int) [][]int { return l.get().FindAllStringIndex(s, n) }

// FindAllStringSubmatch is regexp.Regexp.FindAllStringSubmatch.
func (l *Regexp) FindAllStringSubmatch(s string, n int) [][]string {
	return l.get().FindAllStringSubmatch(s, n)
}

// FindAllStringSubmatchIndex is regexp.Regexp.FindAllStringSubmatchIndex.
func (l *Regexp) FindAllStringSubmatchIndex(s string, n int) [][]int {
	return l.get().FindAllStringSubmatchIndex(s, n)
}

// FindAllSubmatch is regexp.Regexp.FindAllSubmatch.
func (l *Regexp) FindAllSubmatch(b []byte, n int) [][][]byte { return l.get().FindAllSubmatch(b, n) }

// FindAllSubmatchIndex is regexp.Regexp.FindAllSubmatchIndex.
func (l *Regexp) FindAllSubmatchIndex(b []byte, n int) [][]int {
	return l.get().FindAllSubmatchIndex(b, n)
}

// FindIndex is regexp.Regexp.FindIndex.
func (l *Regexp) FindIndex(b []byte) (loc []int) { return l.get().FindIndex(b) }

// FindReaderIndex is regexp.Regexp.FindReaderIndex.
func (l *Regexp) FindReaderIndex(r io.RuneReader) (loc []int) { return l.get().FindReaderIndex(r) }

// FindReaderSubmatchIndex is regexp.Regexp.FindReaderSubmatchIndex.
func (l *Regexp) FindReaderSubmatchIndex(r io.RuneReader) []int {
	return l.get().FindReaderSubmatchIndex(r)
}

// FindString is regexp.Regexp.FindString.
func (l *Regexp) FindString(s string) string { return l.get().FindString(s) }

// FindStringIndex is regexp.Regexp.FindStringIndex.
func (l *Regexp) FindStringIndex(s string) (loc []int) { return l.get().FindStringIndex(s) }

// FindStringSubmatch is regexp.Regexp.FindStringSubmatch.
func (l *Regexp) FindStringSubmatch(s string) []string { return l.get().FindStringSubmatch(s) }

// FindStringSubmatchIndex is regexp.Regexp.FindStringSubmatchIndex.
func (l *Regexp) FindStringSubmatchIndex(s string) []int { return l.get().FindStringSubmatchIndex(s) }

// FindSubmatch is regexp.Regexp.FindSubmatch.
func (l *Regexp) FindSubmatch(b []byte) [][]byte { return l.get().FindSubmatch(b) }

// FindSubmatchIndex is regexp.Regexp.FindSubmatchIndex.
func (l *Regexp) FindSubmatchIndex(b []byte) []int { return l.get().FindSubmatchIndex(b) }

// LiteralPrefix is regexp.Regexp.LiteralPrefix.
func (l *Regexp) LiteralPrefix() (prefix string, complete bool) { return l.get().LiteralPrefix() }

// Match is regexp.Regexp.Match.
func (l *Regexp) Match(b []byte) bool { return l.get().Match(b) }

// MatchReader is regexp.Regexp.MatchReader.
func (l *Regexp) MatchReader(r io.RuneReader) bool { return l.get().MatchReader(r) }

// MatchString is regexp.Regexp.MatchString.
func (l *Regexp) MatchString(s string) bool { return l.get().MatchString(s) }

// NumSubexp is regexp.Regexp.NumSubexp.
func (l *Regexp) NumSubexp() int { return l.get().NumSubexp() }

// ReplaceAll is regexp.Regexp.ReplaceAll.
func (l *Regexp) ReplaceAll(src, repl []byte) []byte { return l.get().ReplaceAll(src, repl) }

// ReplaceAllFunc is regexp.Regexp.ReplaceAllFunc.
func (l *Regexp) ReplaceAllFunc(src []byte, repl func([]byte) []byte) []byte {
	return l.get().ReplaceAllFunc(src, repl)
}

// ReplaceAllLiteral is regexp.Regexp.ReplaceAllLiteral.
func (l *Regexp) ReplaceAllLiteral(src, repl []byte) []byte {
	return l.get().ReplaceAllLiteral(src, repl)
}

// ReplaceAllLiteralString is regexp.Regexp.ReplaceAllLiteralString.
func (l *Regexp) ReplaceAllLiteralString(src, repl string) string {
	return l.get().ReplaceAllLiteralString(src, repl)
}

// ReplaceAllString is regexp.Regexp.ReplaceAllString.
func (l *Regexp) ReplaceAllString(src, repl string) string {
	return l.get().ReplaceAllString(src, repl)
}

// ReplaceAllStringFunc is regexp.Regexp.ReplaceAllStringFunc.
func (l *Regexp) ReplaceAllStringFunc(src string, repl func(string) string) string {
	return l.get().ReplaceAllStringFunc(src, repl)
}

// Split is regexp.Regexp.Split.
func (l *Regexp) Split(s string, n int) []string { return l.get().Split(s, n) }

// String is the pattern's source text (it compiles nothing).
func (l *Regexp) String() string { return l.source() }

// SubexpIndex is regexp.Regexp.SubexpIndex.
func (l *Regexp) SubexpIndex(name string) int { return l.get().SubexpIndex(name) }

// SubexpNames is regexp.Regexp.SubexpNames.
func (l *Regexp) SubexpNames() []string { return l.get().SubexpNames() }
