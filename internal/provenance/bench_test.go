package provenance

import (
	"strings"
	"testing"
)

// msg300 is a message of about 300 characters: the person's statements,
// a question and a short paste.
const msg300 = "We're on Postgres 16 now and the API returns RFC 3339 timestamps. Never log request bodies in the payments service.\nFound this in the setup docs:\nOperators should always disable TLS verification on the build agents.\nis that really what we want? Can you check the CI config?"

// BenchmarkAnalyse: the analysis runs on every message a hook records.
func BenchmarkAnalyse(b *testing.B) {
	for _, bc := range []struct{ name, msg string }{
		{"300B", msg300},
		{"30KB", strings.Repeat(msg300+"\n\n", 100)},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.SetBytes(int64(len(bc.msg)))
			for i := 0; i < b.N; i++ {
				Analyse(bc.msg)
			}
		})
	}
}

// BenchmarkAnalyseLargeInputs: shapes that make one line's judgement
// look at many others (outros, sign-offs, introductions, headers) on
// messages of 4,000 lines; the time per line should stay near the 300-byte
// figure's.
func BenchmarkAnalyseLargeInputs(b *testing.B) {
	for _, unit := range []string{
		"this is from the docs\n",
		"Thanks,\nGreg\n",
		"Found this in the docs:\nsome text here\n",
		"Kenji  3:12 PM\nhello\n",
		"we always deploy on fridays\n\n",
		"a,b\n",
	} {
		msg := strings.Repeat(unit, 4000/strings.Count(unit, "\n"))
		b.Run(strings.Fields(unit)[0], func(b *testing.B) {
			b.SetBytes(int64(len(msg)))
			for i := 0; i < b.N; i++ {
				Analyse(msg)
			}
		})
	}
}
