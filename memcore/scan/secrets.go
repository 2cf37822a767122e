package scan

import (
	"regexp"
	"sort"
	"strings"
)

// secretRule detects one kind of credential in the stripped text. The
// secret is submatch "s" when the pattern has one, else the whole match.
type secretRule struct {
	kind   string // e.g. "openai_key"; also the Rule name and the redaction label
	reason string
	kw     []string // prefilter: at least one must occur (case-sensitive unless lower)
	lower  bool     // prefilter on the lowercased text
	re     *regexp.Regexp
	valid  func(secret, context string) bool
}

const tokenTail = `(?:[^A-Za-z0-9_\-]|$)`

var secretRules = []secretRule{
	{kind: "pem_private_key", reason: "PEM private key block"}, // handled in code
	{kind: "anthropic_key", reason: "Anthropic API key", kw: []string{"sk-ant-"},
		re: regexp.MustCompile(`\b(?P<s>sk-ant-[A-Za-z0-9_\-]{20,})`)},
	{kind: "openai_key", reason: "OpenAI API key", kw: []string{"sk-"},
		re:    regexp.MustCompile(`\b(?P<s>sk-(?:proj-|svcacct-|admin-|None-)?[A-Za-z0-9_\-]{20,})`),
		valid: func(s, _ string) bool { return !strings.HasPrefix(s, "sk-ant-") && looksRandom(s[3:], 3) }},
	{kind: "aws_access_key", reason: "AWS access key id", kw: []string{"AKIA", "ASIA", "ABIA", "ACCA", "AGPA", "AIDA", "AROA", "AIPA", "ANPA", "ANVA", "APKA"},
		re: regexp.MustCompile(`\b(?P<s>(?:AKIA|ASIA|ABIA|ACCA|AGPA|AIDA|AROA|AIPA|ANPA|ANVA|APKA)[A-Z0-9]{16})\b`)},
	{kind: "aws_secret_key", reason: "AWS secret access key", kw: []string{"aws", "secret"}, lower: true,
		re:    regexp.MustCompile(`(?i:aws|secret)[^\n]{0,40}?[=:"'\s>]\s*["']?(?P<s>[A-Za-z0-9/+]{40})(?:[^A-Za-z0-9/+=]|$)`),
		valid: func(s, _ string) bool { return looksRandom(s, 3) }},
	{kind: "github_token", reason: "GitHub token", kw: []string{"ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"},
		re: regexp.MustCompile(`\b(?P<s>(?:(?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{30,255}|github_pat_[A-Za-z0-9_]{22,255}))\b`)},
	{kind: "gitlab_token", reason: "GitLab personal access token", kw: []string{"glpat-"},
		re: regexp.MustCompile(`\b(?P<s>glpat-[A-Za-z0-9_\-]{20,})`)},
	{kind: "slack_webhook", reason: "Slack webhook URL", kw: []string{"hooks.slack.com"},
		re: regexp.MustCompile(`(?P<s>https?://hooks\.slack\.com/(?:services|workflows|triggers)/[A-Za-z0-9_/\-]{8,})`)},
	{kind: "slack_token", reason: "Slack token", kw: []string{"xox", "xapp-"},
		re: regexp.MustCompile(`\b(?P<s>(?:xox[abposr]-[A-Za-z0-9\-]{10,}|xapp-\d-[A-Za-z0-9\-]{10,}))`)},
	{kind: "stripe_key", reason: "Stripe secret key", kw: []string{"_live_", "_test_"},
		re: regexp.MustCompile(`\b(?P<s>(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{10,})`)},
	{kind: "google_api_key", reason: "Google API key", kw: []string{"AIza"},
		re: regexp.MustCompile(`\b(?P<s>AIza[0-9A-Za-z_\-]{35})` + tokenTail)},
	{kind: "npm_token", reason: "npm access token", kw: []string{"npm_"},
		re: regexp.MustCompile(`\b(?P<s>npm_[A-Za-z0-9]{36})\b`)},
	{kind: "pypi_token", reason: "PyPI API token", kw: []string{"pypi-AgE"},
		re: regexp.MustCompile(`\b(?P<s>pypi-AgE[A-Za-z0-9_\-]{40,})`)},
	{kind: "huggingface_token", reason: "Hugging Face token", kw: []string{"hf_"},
		re:    regexp.MustCompile(`\b(?P<s>hf_[A-Za-z0-9]{30,})\b`),
		valid: func(s, _ string) bool { return looksRandom(s[3:], 2) }},
	{kind: "jwt", reason: "JSON Web Token", kw: []string{"eyJ"},
		re: regexp.MustCompile(`\b(?P<s>eyJ[A-Za-z0-9_\-]{8,}\.eyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]*)`)},
	{kind: "bearer_token", reason: "Authorization bearer token", kw: []string{"bearer", "token"}, lower: true,
		re: regexp.MustCompile(`(?i)(?P<ctx>authorization["']?\s*[:=]\s*["']?\s*)?\b(?:bearer|token)\s+(?P<s>[A-Za-z0-9\-._~+/]{8,}=*)`),
		valid: func(s, ctx string) bool {
			return ctx != "" || looksRandom(s, 2) && hasDigit(s)
		}},
	{kind: "basic_auth", reason: "Authorization basic credentials", kw: []string{"basic"}, lower: true,
		re: regexp.MustCompile(`(?i)(?P<ctx>authorization["']?\s*[:=]\s*["']?\s*|-u\s+\S+\s+-H\s+["']?)?\bbasic\s+(?P<s>[A-Za-z0-9+/]{6,}=*)`),
		valid: func(s, ctx string) bool {
			return ctx != "" || (strings.HasSuffix(s, "=") && len(s) >= 12)
		}},
	{kind: "url_password", reason: "password embedded in a URL", kw: []string{"://"},
		re:    regexp.MustCompile(`\b[A-Za-z][A-Za-z0-9+.\-]*://[^\s:/?#@"'<>]+:(?P<s>[^\s/?#@"'<>]+)@`),
		valid: func(s, _ string) bool { return !isPlaceholderPassword(s) }},
}

// looksRandom reports whether s mixes at least n of: lowercase, uppercase,
// digits, symbols.
func looksRandom(s string, n int) bool {
	var lo, up, di, sy bool
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'a' && c <= 'z':
			lo = true
		case c >= 'A' && c <= 'Z':
			up = true
		case c >= '0' && c <= '9':
			di = true
		default:
			sy = true
		}
	}
	k := 0
	for _, b := range []bool{lo, up, di, sy} {
		if b {
			k++
		}
	}
	return k >= n
}

func hasDigit(s string) bool { return strings.ContainsAny(s, "0123456789") }

func isPlaceholderPassword(p string) bool {
	l := strings.ToLower(p)
	switch l {
	case "password", "pass", "passwd", "pwd", "secret", "pw", "x", "xxx", "xxxx", "changeme", "your_password", "yourpassword", "mypassword", "token":
		return true
	}
	if strings.Trim(l, "*x.") == "" {
		return true
	}
	if strings.HasPrefix(l, "$") || strings.HasPrefix(l, "%") || strings.HasPrefix(l, "{") || strings.HasPrefix(l, "<") || strings.HasPrefix(l, "[") {
		return true
	}
	return false
}

type secretHit struct {
	kind, reason string
	start, end   int // stripped offsets
}

// findSecrets returns credential hits in s (stripped text), merged so that
// spans never overlap.
func findSecrets(s string) []secretHit {
	var hits []secretHit
	var lower string
	for ri := range secretRules {
		rule := &secretRules[ri]
		if rule.kind == "pem_private_key" {
			hits = appendPEM(hits, s, rule)
			continue
		}
		hay := s
		if rule.lower {
			if lower == "" {
				lower = strings.ToLower(s)
			}
			hay = lower
		}
		found := false
		for _, k := range rule.kw {
			if strings.Contains(hay, k) {
				found = true
				break
			}
		}
		if !found {
			continue
		}
		si := rule.re.SubexpIndex("s")
		ci := rule.re.SubexpIndex("ctx")
		for _, m := range rule.re.FindAllStringSubmatchIndex(s, -1) {
			a, b := m[0], m[1]
			if si >= 0 && m[2*si] >= 0 {
				a, b = m[2*si], m[2*si+1]
			}
			ctx := ""
			if ci >= 0 && m[2*ci] >= 0 {
				ctx = s[m[2*ci]:m[2*ci+1]]
			}
			if rule.valid != nil && !rule.valid(s[a:b], ctx) {
				continue
			}
			hits = append(hits, secretHit{rule.kind, rule.reason, a, b})
		}
	}
	if len(hits) < 2 {
		return hits
	}
	sort.SliceStable(hits, func(i, j int) bool {
		if hits[i].start != hits[j].start {
			return hits[i].start < hits[j].start
		}
		return hits[i].end > hits[j].end
	})
	out := hits[:1]
	for _, h := range hits[1:] {
		last := &out[len(out)-1]
		if h.start < last.end {
			if h.end > last.end {
				last.end = h.end
			}
			continue
		}
		out = append(out, h)
	}
	return out
}

var pemBegin = regexp.MustCompile(`-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----`)
var pemEnd = regexp.MustCompile(`-----END (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----`)

func appendPEM(hits []secretHit, s string, rule *secretRule) []secretHit {
	if !strings.Contains(s, "-----BEGIN") {
		return hits
	}
	pos := 0
	for pos < len(s) {
		m := pemBegin.FindStringIndex(s[pos:])
		if m == nil {
			break
		}
		a := pos + m[0]
		e := pemEnd.FindStringIndex(s[pos+m[1]:])
		b := len(s) // unterminated: redact to the end (safer)
		if e != nil {
			b = pos + m[1] + e[1]
		}
		hits = append(hits, secretHit{rule.kind, rule.reason, a, b})
		pos = b
	}
	return hits
}

// redactSpans returns text with each credential finding's span (original
// offsets, sorted, non-overlapping) replaced by [REDACTED:<rule>].
func redactSpans(text string, spans []Finding) string {
	if len(spans) == 0 {
		return text
	}
	var sb strings.Builder
	sb.Grow(len(text))
	pos := 0
	for _, f := range spans {
		if f.Start < pos {
			continue
		}
		sb.WriteString(text[pos:f.Start])
		sb.WriteString("[REDACTED:" + f.Rule + "]")
		pos = f.End
	}
	sb.WriteString(text[pos:])
	return sb.String()
}

// credentialFindings maps secret hits found in the stripped text back to
// the original input. A secret split by invisible characters is redacted
// as one span, invisible characters included.
func credentialFindings(st strippedText) []Finding {
	hits := findSecrets(st.s)
	if len(hits) == 0 {
		return nil
	}
	out := make([]Finding, 0, len(hits))
	for _, h := range hits {
		a := st.orig(h.start)
		b := st.orig(h.end-1) + 1
		out = append(out, Finding{Kind: KindCredential, Rule: h.kind, Severity: Block, Start: a, End: b,
			Match: "[REDACTED:" + h.kind + "]", Reason: h.reason + " (redacted)"})
	}
	return out
}

// Redact replaces every credential in text with [REDACTED:<kind>] and
// returns the redacted text and the credential findings. Secrets split by
// invisible characters are found and redacted whole.
func Redact(text string) (string, []Finding) {
	_, st := charPass(text, nil)
	fs := credentialFindings(st)
	return redactSpans(text, fs), fs
}
