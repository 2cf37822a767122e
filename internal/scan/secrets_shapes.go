package scan

import (
	"strings"

	"github.com/odekmem/odekmem/internal/lazyre"
)

// More generic shapes, beside those of secrets.go and secrets_more.go:
// secret-named keys with the assignments other languages use (=>, ?=,
// XML elements, command-line flags), passwords stated in prose with a
// short name ("my pw is …"), .netrc default entries, docker login -p,
// Kubernetes Secret data, and values after vendor names.

const secretName = `(?:passw(?:or)?d|pass(?:phrase|code)|pwd|secret|token|api[_\-]?key|apikey|access[_\-]?key|private[_\-]?key|signing[_\-]?key|client[_\-]?secret|credentials?|auth[_\-]?token)`

// secretKeyName also takes the short names (pw, pass, auth) where the
// syntax around them is unambiguous: quotes and =>, ?=, an XML element.
const secretKeyName = `(?:` + secretName + `|pw|pass|auth)`

var shapeSecretRules = []secretRule{
	// 'password' => 'x', :password => "x", PASSWORD ?= x, token || 'x',
	// ("api_key", "x")
	{kind: "secret_assignment", reason: "value assigned to a secret-named key", kw: []string{"pass", "pw", "secret", "token", "key", "cred", "auth"}, lower: true, need: "=|,",
		re:    lazyre.New(`(?i)(?P<ctx>\b[A-Za-z0-9_.\-]*` + secretKeyName + `[A-Za-z0-9_.\-]*)["']?\s*(?:=>|\?=|\|\|=?|,)\s*["'\x60](?P<s>[^"'\x60\s]{4,})|(?i)(?P<ctx>\b[A-Za-z0-9_.\-]*` + secretKeyName + `[A-Za-z0-9_.\-]*)\s*\?=\s*(?P<s>[^"'\x60\s]{4,})`),
		valid: validAssignment},
	// <password>x</password>, <ApiKey>x</ApiKey>
	{kind: "secret_assignment", reason: "value of a secret-named XML element", kw: []string{"pass", "pw", "secret", "token", "key", "auth"}, lower: true,
		re:    lazyre.New(`(?i)<(?P<ctx>[A-Za-z0-9_:.\-]*` + secretKeyName + `[A-Za-z0-9_\-]*)(?:\s[^>]*)?>\s*(?P<s>[^<\s]{3,})\s*</`),
		valid: validAssignment},
	// --token abc, --api-key=abc, -Password x (PowerShell), --client-secret x
	{kind: "cli_password", reason: "secret on a command line", kw: []string{"-pass", "-pwd", "-token", "-secret", "-api", "-key", "-access", "-auth", "-private", "-client"}, lower: true,
		re: lazyre.New(`(?i)(?:^|[\s"'(])--?(?P<ctx>(?:[a-z0-9]+-)*(?:password|passwd|pass|pwd|passphrase|token|secret|api-?key|access-?key|secret-?key|client-?secret|auth-?token|private-?key))(?:=|[ \t]+)["']?(?P<s>[^\s"'\x60]{4,})`),
		valid: func(s, ctx string) bool {
			return !strings.HasPrefix(s, "-") && validAssignment(s, ctx) && !proseWord(s)
		}},
	// docker login -u user -p SECRET, docker login --password SECRET
	{kind: "cli_password", reason: "password on a command line", kw: []string{"docker", "podman", "helm", "oras", "buildah", "skopeo"}, lower: true,
		re:    lazyre.New(`(?i)\b(?:docker|podman|helm(?:\s+registry)?|oras|buildah|skopeo)\s+login\b[^\n|;&]{0,160}?\s-p[ \t]+["']?(?P<s>[^\s"'\x60]{3,})`),
		valid: func(s, _ string) bool { return !isPlaceholderPassword(s) && !strings.HasPrefix(s, "-") }},
	// "my pw is x", "pass for the vpn was x"
	{kind: "password_statement", reason: "a password stated in prose", kw: []string{"pw", "pass"}, lower: true,
		re:    lazyre.New(`(?i)(?P<ctx>\b(?:pw|pass)\b(?: for [\w.\-]+)?\s+(?:is|was|=)\s*(?::\s*)?)["'\x60]?(?P<s>[^\s"'\x60]{3,})`),
		valid: validStatedPassword},
	// "the api key is x", "token was: x"
	{kind: "password_statement", reason: "a secret stated in prose", kw: []string{"key", "token", "secret"}, lower: true,
		re: lazyre.New(`(?i)(?P<ctx>\b(?:api[ _\-]?key|access[ _\-]?key|secret(?:[ _\-]?key)?|(?:auth|access|api|bearer|bot)?[ _\-]?token)\b(?: for [\w.\-]+)?\s+(?:is|was|=)\s*(?::\s*)?)["'\x60]?(?P<s>[^\s"'\x60]{6,})`),
		valid: func(s, ctx string) bool {
			s = strings.TrimRight(s, ".,;:!?)")
			if !validAssignment(s, "token") || strings.Contains(strings.TrimRight(s, "="), "=") {
				return false
			}
			if c := strings.TrimSpace(ctx); strings.HasSuffix(c, ":") || strings.HasSuffix(c, "=") {
				return len(s) >= 8 && looksRandom(s, 2)
			}
			return secretLooking(s, 12)
		}},
	// .netrc: default login x password y
	{kind: "netrc_password", reason: ".netrc password", kw: []string{"default", "password"}, lower: true,
		re:    lazyre.New(`(?i)\bdefault(?:\s+(?:login|account)\s+\S+)+\s+password\s+(?P<s>\S+)`),
		valid: func(s, _ string) bool { return !isPlaceholderPassword(s) }},
	// Kubernetes Secret manifests: every value under data: / stringData:
	{kind: "kubernetes_secret", reason: "Kubernetes Secret data", kw: []string{"kind: secret", "kind: \"secret\"", "\"kind\": \"secret\""}, lower: true,
		find: appendKubeSecret},
	{kind: "vendor_secret", reason: "secret assigned to a vendor-named setting", find: func(hits []secretHit, s, lower string) []secretHit {
		return appendVendorKeywords(hits, s, lower)
	}},
}

var kubeData = lazyre.New(`(?m)^([ \t]*)(?:data|stringData):[ \t]*\n`)
var kubeEntry = lazyre.New(`^([ \t]+)[A-Za-z0-9_.\-]+:[ \t]*(?:[|>][+\-]?[ \t]*\n)?`)

// appendKubeSecret redacts the values of the data and stringData maps of
// a Kubernetes Secret manifest (gitleaks' kubernetes-secret-yaml).
func appendKubeSecret(hits []secretHit, s, _ string) []secretHit {
	for _, m := range kubeData.FindAllStringSubmatchIndex(s, -1) {
		outer := m[3] - m[2]
		pos := m[1]
		indent := -1
		for pos < len(s) {
			e := kubeEntry.FindStringSubmatchIndex(s[pos:])
			if e == nil {
				break
			}
			in := e[3] - e[2]
			if in <= outer || indent >= 0 && in != indent {
				break
			}
			indent = in
			a := pos + e[1]
			b := a
			// the value runs to the end of the line, or over the lines of a
			// block scalar indented deeper than the key
			for b < len(s) {
				nl := strings.IndexByte(s[b:], '\n')
				if nl < 0 {
					b = len(s)
					break
				}
				b += nl
				next := b + 1
				k := next
				for k < len(s) && (s[k] == ' ' || s[k] == '\t') {
					k++
				}
				if k-next > indent && k < len(s) && s[k] != '\n' {
					b = next
					continue
				}
				break
			}
			v := strings.Trim(s[a:b], " \t\r\n\"'")
			if len(v) >= 3 && !isPlaceholderPassword(v) {
				hits = append(hits, secretHit{"kubernetes_secret", "Kubernetes Secret data", a, b})
			}
			if b >= len(s) {
				break
			}
			pos = b + 1
		}
	}
	return hits
}

// proseWords are words that follow "password:" or "--token" in prose and
// documentation rather than a value ("Password: must be rotated",
// "--token is required").
var proseWords = map[string]bool{
	"must": true, "should": true, "will": true, "can": true, "cannot": true, "may": true, "needs": true, "need": true,
	"is": true, "was": true, "are": true, "be": true, "the": true, "a": true, "an": true, "not": true, "see": true, "use": true,
	"set": true, "unset": true, "empty": true, "blank": true, "hidden": true, "masked": true, "stored": true, "changed": true,
	"reset": true, "expired": true, "rotated": true, "policy": true, "field": true, "prompt": true, "value": true,
	"flag": true, "option": true, "argument": true, "parameter": true, "provided": true, "missing": true, "invalid": true,
	"incorrect": true, "wrong": true, "accepted": true, "rejected": true, "only": true, "also": true, "and": true, "or": true,
	"from": true, "with": true, "without": true, "for": true, "to": true, "in": true, "on": true, "of": true, "if": true,
	"when": true, "unless": true, "default": true, "same": true, "here": true, "there": true, "this": true, "that": true,
	"ignored": true, "deprecated": true, "supported": true, "disabled": true, "enabled": true, "sent": true, "shown": true,
}

// proseWord reports a value that is a word of prose.
func proseWord(s string) bool { return proseWords[strings.ToLower(strings.TrimRight(s, ".,;:!?)"))] }

// asciiLower lowercases ASCII letters only, so offsets in the result are
// offsets in s.
func asciiLower(s string) string {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c >= 'A' && c <= 'Z' {
			b := []byte(s)
			for j := i; j < len(b); j++ {
				if b[j] >= 'A' && b[j] <= 'Z' {
					b[j] += 'a' - 'A'
				}
			}
			return string(b)
		}
	}
	return s
}

// namePath reports a token made mostly of words joined by - _ . / (a
// model id "org/model-base-v2", a path, a package name): at least two
// joins, and at least 60% of its letters in letter-only segments of 3 or
// more.
func namePath(s string) bool {
	// one base64 alphabet has '/', the URL-safe one '-' and '_': a token
	// with both kinds is a path, not an encoding
	if strings.Contains(s, "/") && strings.ContainsAny(s, "-_") {
		return true
	}
	segs := strings.FieldsFunc(s, func(r rune) bool { return r == '-' || r == '_' || r == '.' || r == '/' })
	if len(segs) < 3 {
		return false
	}
	wordy := 0
	for _, g := range segs {
		if len(g) >= 3 && strings.Trim(g, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ") == "" {
			wordy += len(g)
		}
	}
	return wordy*10 >= (len(s)-len(segs)+1)*6
}

// bitcoinAddress reports a legacy Bitcoin address (base58, 26-35
// characters, starting 1 or 3): public, not a key.
func bitcoinAddress(s string) bool {
	if len(s) < 26 || len(s) > 35 || s[0] != '1' && s[0] != '3' {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= '1' && c <= '9' || c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z') || c == 'I' || c == 'O' || c == 'l' {
			return false
		}
	}
	return true
}
