package memcore

import (
	"strings"
	"unicode"

	"github.com/odekmem/odekmem/memcore/scan"
)

// stripHidden removes characters a person cannot see: format characters
// (zero-width, bidi controls, tag characters, soft hyphen), other
// default-ignorable code points, variation selectors and control
// characters other than newline and tab. ZWJ and ZWNJ stay: they are part
// of emoji and of Persian and Indic spelling.
func stripHidden(s string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r == '\n' || r == '\t':
			return r
		case r == 0x200C || r == 0x200D:
			return r
		case unicode.IsControl(r), unicode.Is(unicode.Cf, r), unicode.Is(unicode.Other_Default_Ignorable_Code_Point, r),
			unicode.Is(unicode.Variation_Selector, r):
			return -1
		}
		return r
	}, s)
}

// scanText reports whether the scanner blocks text.
func scanText(text string) bool { return scan.Scan(text).Blocked() }
