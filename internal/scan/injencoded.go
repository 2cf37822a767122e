package scan

// Injections hidden in base64, hex or binary runs (split from inject.go,
// which holds the plain-text rules).

import (
	"encoding/base64"
	"encoding/hex"
	"strings"
	"unicode/utf8"
)

func isB64Byte(c byte) bool {
	return c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '+' || c == '/' || c == '_' || c == '-'
}

func isHexByte(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F' || c == ' ' || c == ':'
}

func isBinByte(c byte) bool { return c == '0' || c == '1' || c == ' ' }

// runs returns up to max [start,end) ranges of bytes satisfying in, at
// least minLen long (trimmed of spaces), bounded by non-word bytes.
func runs(s string, in func(byte) bool, minLen, max int, pad bool) [][2]int {
	var out [][2]int
	for i := 0; i < len(s) && len(out) < max; {
		if !in(s[i]) || s[i] == ' ' || s[i] == ':' {
			i++
			continue
		}
		j := i
		for j < len(s) && in(s[j]) {
			j++
		}
		e := j
		for e > i && (s[e-1] == ' ' || s[e-1] == ':') {
			e--
		}
		if pad {
			for e < len(s) && s[e] == '=' && e-j < 2 {
				e++
			}
		}
		startOK := i == 0 || !isWordByte(s[i-1])
		if !startOK {
			if k := strings.IndexAny(s[i:j], " :"); k > 0 {
				i += k + 1
				continue
			}
		}
		endOK := e >= len(s) || !isWordByte(s[e]) || pad
		if e-i >= minLen && startOK && endOK {
			out = append(out, [2]int{i, e})
		}
		if j == i {
			j++
		}
		i = j
	}
	return out
}

// encodedInjection decodes base64, hex and binary runs in s (stripped
// text) and looks for injection patterns in the decoded text. It returns
// stripped offsets of the encoded run.
func encodedInjection(s string) (injHit, bool) {
	try := func(dec []byte) (injHit, bool) {
		if len(dec) < 8 || !utf8.Valid(dec) || !mostlyPrintable(dec) {
			return injHit{}, false
		}
		n := Normalize(string(dec))
		hs := matchInjection(n, true)
		if len(hs) == 0 {
			h, ok, sum := scoreSummary(n)
			if ok {
				return injHit{rule: "score_" + h.top, reason: h.reason("")}, true
			}
			if mh, ok := scoreModel(n, &sum); ok {
				return injHit{rule: ModelRule, reason: mh.why}, true
			}
			return injHit{}, false
		}
		return hs[0], true
	}
	var b32 injHit
	base32Runs(s, func(a, b int, dec []byte) bool {
		if h, ok := try(dec); ok {
			b32 = injHit{"base32_" + h.rule, "base32-encoded: " + h.reason, a, b}
			return true
		}
		return false
	})
	if b32.rule != "" {
		return b32, true
	}
	for _, m := range runs(s, isB64Byte, 24, 8, true) {
		run := s[m[0]:m[1]]
		for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.RawStdEncoding, base64.URLEncoding, base64.RawURLEncoding} {
			dec, err := enc.DecodeString(run)
			if err != nil {
				continue
			}
			if h, ok := try(dec); ok {
				return injHit{"base64_" + h.rule, "base64-encoded: " + h.reason, m[0], m[1]}, true
			}
			break
		}
	}
	for _, m := range runs(s, isHexByte, 24, 8, false) {
		run := strings.NewReplacer(" ", "", ":", "").Replace(s[m[0]:m[1]])
		if len(run)%2 == 1 {
			run = run[:len(run)-1]
		}
		if dec, err := hex.DecodeString(run); err == nil {
			if h, ok := try(dec); ok {
				return injHit{"hex_" + h.rule, "hex-encoded: " + h.reason, m[0], m[1]}, true
			}
		}
	}
	for _, m := range runs(s, isBinByte, 48, 8, false) {
		bits := strings.ReplaceAll(s[m[0]:m[1]], " ", "")
		dec := make([]byte, 0, len(bits)/8)
		for i := 0; i+8 <= len(bits); i += 8 {
			var c byte
			for _, bit := range bits[i : i+8] {
				c = c<<1 | byte(bit-'0')
			}
			dec = append(dec, c)
		}
		if h, ok := try(dec); ok {
			return injHit{"binary_" + h.rule, "binary-encoded: " + h.reason, m[0], m[1]}, true
		}
	}
	return injHit{}, false
}

func mostlyPrintable(b []byte) bool {
	n, ok := 0, 0
	for _, r := range string(b) {
		n++
		if r >= 0x20 && r != 0x7f || r == '\n' || r == '\t' {
			ok++
		}
	}
	return n > 0 && ok*10 >= n*9
}
