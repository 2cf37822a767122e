package scan

import (
	"crypto/rand"
	"encoding/hex"
	"strings"

	"github.com/odekmem/odekmem/internal/lazyre"
)

var (
	untrustedOpen     = lazyre.New(`(?i)<untrusted_content_([0-9a-f]+)(?:\s[^>]*)?>`)
	untrustedNeutral  = lazyre.New(`(?i)<(\s*/?\s*untrusted_content)`)
	attrEscaper       = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&quot;", "'", "&#39;")
	untrustedCloseFmt = "</untrusted_content_%s>"
)

// StripUntrusted removes whole <untrusted_content_NONCE ...>…</untrusted_content_NONCE>
// blocks from msg. An open tag without its matching close tag removes
// everything from the open tag to the end of the message.
func StripUntrusted(msg string) string {
	if indexFoldASCII(msg, "<untrusted_content_") < 0 {
		return msg
	}
	var sb strings.Builder
	pos := 0
	for pos < len(msg) {
		m := untrustedOpen.FindStringSubmatchIndex(msg[pos:])
		if m == nil {
			break
		}
		a := pos + m[0]
		nonce := msg[pos+m[2] : pos+m[3]]
		sb.WriteString(msg[pos:a])
		rest := msg[pos+m[1]:]
		closeTag := strings.Replace(untrustedCloseFmt, "%s", nonce, 1)
		i := indexFoldASCII(rest, closeTag)
		if i < 0 {
			return sb.String() // unmatched: drop to the end (safer)
		}
		pos = pos + m[1] + i + len(closeTag)
	}
	sb.WriteString(msg[pos:])
	return sb.String()
}

// indexFoldASCII is strings.Index with ASCII case folding; byte offsets are
// those of s (no re-encoding, so invalid UTF-8 cannot shift them).
func indexFoldASCII(s, sub string) int {
	n := len(sub)
	for i := 0; i+n <= len(s); i++ {
		j := 0
		for ; j < n; j++ {
			a, b := s[i+j], sub[j]
			if 'A' <= a && a <= 'Z' {
				a += 32
			}
			if 'A' <= b && b <= 'Z' {
				b += 32
			}
			if a != b {
				break
			}
		}
		if j == n {
			return i
		}
	}
	return -1
}

// Wrap wraps body as untrusted content from source, with a fresh 16-hex-digit
// nonce. The source attribute is escaped, and any "<untrusted_content" or
// "</untrusted_content" text inside body is neutralised (its '<' becomes '‹')
// so the block cannot be closed early or nested.
func Wrap(source, body string) string {
	var b [8]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic("scan: crypto/rand failed: " + err.Error())
	}
	nonce := hex.EncodeToString(b[:])
	body = untrustedNeutral.ReplaceAllString(body, "‹$1")
	var sb strings.Builder
	sb.Grow(len(body) + len(source) + 96)
	sb.WriteString("<untrusted_content_")
	sb.WriteString(nonce)
	sb.WriteString(` source="`)
	sb.WriteString(attrEscaper.Replace(source))
	sb.WriteString("\">\n")
	sb.WriteString(body)
	sb.WriteString("\n</untrusted_content_")
	sb.WriteString(nonce)
	sb.WriteString(">")
	return sb.String()
}
