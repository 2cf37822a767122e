package memcore

import (
	"github.com/odekmem/odekmem/internal/scan"
)

// stripHidden removes characters a person cannot see — the set the
// scanner derives from Unicode properties (Default_Ignorable_Code_Point,
// every format character, private use, noncharacters, braille blank,
// object replacement), tag characters, bidi controls and marks, variation
// selectors and control characters other than newline and tab — keeping
// ZWJ/ZWNJ where they are emoji or Persian/Indic spelling and the tags of
// a flag emoji. See scan.StripHidden.
func stripHidden(s string) string { return scan.StripHidden(s) }

// scanText reports whether the scanner blocks text.
func scanText(text string) bool { return scan.Scan(text).Blocked() }
