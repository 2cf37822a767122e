package scan

import (
	"encoding/base32"
	"strings"
	"sync"
)

// Decoders for disguises the pattern rules cannot read: text written
// backwards, Morse code, pig latin and base32. Each returns the decoded
// text only when the input looks like that disguise, so ordinary text
// costs a scan of its bytes and nothing more.

// commonWords are frequent English words; decoded text full of them is
// English.
var commonWords = sync.OnceValue(func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields("the a an and or to of in on for with is are be this that it you your all any previous instructions ignore forget " +
		"tell user send save remember run never always now from as by at not do what me my new rules system prompt memory preference password key keys " +
		"file files print show delete disable push main force api secret secrets build green scanner contents home directory") {
		m[w] = true
	}
	return m
})

// englishScore counts the common words among the words of s.
func englishScore(s string) (hits, words int) {
	for _, w := range strings.Fields(s) {
		w = strings.Trim(w, ".,;:!?'\"()")
		if w == "" {
			continue
		}
		words++
		if commonWords()[w] {
			hits++
		}
	}
	return hits, words
}

// reversedText returns the view read backwards when that reads as
// English and the view as written does not.
func reversedText(v string) (string, bool) {
	if len(v) < 16 {
		return "", false
	}
	r := []rune(v)
	for i, j := 0, len(r)-1; i < j; i, j = i+1, j-1 {
		r[i], r[j] = r[j], r[i]
	}
	back := string(r)
	hb, n := englishScore(back)
	hf, _ := englishScore(v)
	if n < 3 || hb < 3 || hb*10 < n*3 || hb <= 2*hf {
		return "", false
	}
	return back, true
}

var morseTable = map[string]byte{
	".-": 'a', "-...": 'b', "-.-.": 'c', "-..": 'd', ".": 'e', "..-.": 'f', "--.": 'g', "....": 'h', "..": 'i', ".---": 'j',
	"-.-": 'k', ".-..": 'l', "--": 'm', "-.": 'n', "---": 'o', ".--.": 'p', "--.-": 'q', ".-.": 'r', "...": 's', "-": 't',
	"..-": 'u', "...-": 'v', ".--": 'w', "-..-": 'x', "-.--": 'y', "--..": 'z', "-----": '0', ".----": '1', "..---": '2',
	"...--": '3', "....-": '4', ".....": '5', "-....": '6', "--...": '7', "---..": '8', "----.": '9', "-....-": '-', ".-.-.-": '.',
}

// morseText decodes the longest stretch of Morse code in s: letters
// separated by spaces, words by " / " or three spaces.
func morseText(s string) (string, bool) {
	toks := strings.Fields(strings.ReplaceAll(strings.ReplaceAll(s, "|", " / "), "/", " / "))
	var sb strings.Builder
	letters, other := 0, 0
	for _, t := range toks {
		if t == "/" {
			sb.WriteByte(' ')
			continue
		}
		if c, ok := morseTable[t]; ok {
			sb.WriteByte(c)
			letters++
			continue
		}
		if strings.Trim(t, ".-") == "" {
			sb.WriteByte('?')
			letters++
			continue
		}
		other++
		sb.WriteByte(' ')
	}
	if letters < 12 || letters < 3*other {
		return "", false
	}
	return sb.String(), true
}

// pigLatinText undoes pig latin when most words end in "ay".
func pigLatinText(v string) (string, bool) {
	ws := strings.Fields(v)
	if len(ws) < 4 {
		return "", false
	}
	out := make([]string, 0, len(ws))
	ay := 0
	for _, w := range ws {
		t := strings.Trim(w, ".,;:!?'\"")
		switch {
		case strings.HasSuffix(t, "way") && len(t) > 3 && isVowel(t[0]):
			ay++
			out = append(out, t[:len(t)-3])
		case strings.HasSuffix(t, "ay") && len(t) > 2:
			ay++
			base := t[:len(t)-2]
			// The moved consonants are a suffix of base; prefer the split
			// that makes a common word ("eviouspr" → "previous").
			best := ""
			for k := len(base) - 1; k >= max(0, len(base)-3) && !isVowel(base[k]); k-- {
				w := base[k:] + base[:k]
				if best == "" || commonWords()[w] {
					best = w
				}
				if commonWords()[w] {
					break
				}
			}
			if best == "" {
				best = base
			}
			out = append(out, best)
		default:
			out = append(out, t)
		}
	}
	if ay*10 < len(ws)*6 {
		return "", false
	}
	return strings.Join(out, " "), true
}

func isVowel(c byte) bool { return strings.IndexByte("aeiou", c) >= 0 }

func isB32Byte(c byte) bool { return c >= 'A' && c <= 'Z' || c >= '2' && c <= '7' }

// base32Runs decodes runs of base32 (upper case, as written) in s.
func base32Runs(s string, each func(a, b int, dec []byte) bool) {
	for _, m := range runs(s, isB32Byte, 24, 8, false) {
		for m[1] < len(s) && s[m[1]] == '=' && m[1]-m[0] < 1<<16 {
			m[1]++
		}
		run := s[m[0]:m[1]]
		for _, enc := range []*base32.Encoding{base32.StdEncoding, base32.StdEncoding.WithPadding(base32.NoPadding)} {
			if dec, err := enc.DecodeString(run); err == nil {
				if each(m[0], m[1], dec) {
					return
				}
				break
			}
		}
	}
}
