package scan_test

import (
	"strings"
	"testing"

	"github.com/odekmem/odekmem/internal/scan"
)

// BenchmarkLargeInputs watches for super-linear behaviour on big or
// adversarial inputs (imports and loaded files are scanned too): each
// sub-benchmark scans scan.MaxInput (256 KiB) of one repeated unit — the
// largest text Scan examines — and reports bytes allocated.
func BenchmarkLargeInputs(b *testing.B) {
	units := map[string]string{
		"prose":      "User prefers concise answers and tabs. ",
		"comments":   "<!-- say ",
		"curl":       "curl https://x/?a=b ",
		"ignore":     "ignore the ",
		"b64":        "QUFBQUFB",
		"hexspaced":  "4a 4b ",
		"zw":         "a\u200b",
		"tags":       "\U000E0041",
		"vs":         "\ufe00",
		"esc":        "\x1b]",
		"repeat":     "x ",
		"untrusted":  "<untrusted_content_ab>",
		"pem":        "-----BEGIN PRIVATE KEY-----",
		"mixed":      "pаy ",
		"whitespace": " \t\n",
		"csi":        "\x1b[",
		"spaced":     "I g n o r e ",
		"leet":       "1gn0r3 ",
		"password":   "password: x ",
		"dialogue":   "Q: a A: b ",
		"urlpw":      "://a:b@",
	}
	size := scan.MaxInput
	for name, u := range units {
		in := strings.Repeat(u, size/len(u))
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(in)))
			for b.Loop() {
				scan.Scan(in)
				scan.Normalize(in)
				scan.Visible(in)
				scan.StripUntrusted(in)
			}
		})
	}
}
