package scan

import (
	"encoding/base64"
	"math"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/odekmem/odekmem/internal/lazyre"
)

// secretRule detects one kind of credential in the stripped text. The
// secret is submatch "s" when the pattern has one, else the whole match.
type secretRule struct {
	kind   string // e.g. "openai_key"; also the Rule name and the redaction label
	reason string
	kw     []string // prefilter: at least one must occur (case-sensitive unless lower)
	lower  bool     // prefilter on the lowercased text
	// need, when set, is a second prefilter: the pattern cannot match a
	// text holding none of these bytes (its operator: an assignment needs
	// "=" or ":"), so it is not run on one.
	need  string
	re    *lazyre.Regexp
	valid func(secret, context string) bool
	// find, when set, replaces re: it appends the hits in s (lower is s
	// with ASCII letters lowercased, byte for byte).
	find func(hits []secretHit, s, lower string) []secretHit
}

const tokenTail = `(?:[^A-Za-z0-9_\-]|$)`

var secretRules = []secretRule{
	{kind: "pem_private_key", reason: "PEM private key block"}, // handled in code
	{kind: "anthropic_key", reason: "Anthropic API key", kw: []string{"sk-ant-"},
		re: lazyre.New(`\b(?P<s>sk-ant-[A-Za-z0-9_\-]{20,})`)},
	{kind: "openai_key", reason: "OpenAI API key", kw: []string{"sk-"},
		re:    lazyre.New(`\b(?P<s>sk-(?:proj-|svcacct-|admin-|None-)?[A-Za-z0-9_\-]{20,})`),
		valid: func(s, _ string) bool { return !strings.HasPrefix(s, "sk-ant-") && looksRandom(s[3:], 3) }},
	{kind: "aws_access_key", reason: "AWS access key id", kw: []string{"AKIA", "ASIA", "ABIA", "ACCA", "AGPA", "AIDA", "AROA", "AIPA", "ANPA", "ANVA", "APKA"},
		re: lazyre.New(`\b(?P<s>(?:AKIA|ASIA|ABIA|ACCA|AGPA|AIDA|AROA|AIPA|ANPA|ANVA|APKA)[A-Z0-9]{16})\b`)},
	{kind: "aws_secret_key", reason: "AWS secret access key", kw: []string{"aws", "secret"}, lower: true,
		re:    lazyre.New(`(?i:aws|secret)[^\n]{0,40}?[=:"'\s>]\s*["']?(?P<s>[A-Za-z0-9/+]{40})(?:[^A-Za-z0-9/+=]|$)`),
		valid: func(s, _ string) bool { return looksRandom(s, 3) }},
	// A 40-character secret anywhere in a text that mentions AWS (or holds
	// an access key id), however far from the word.
	{kind: "aws_secret_key", reason: "AWS secret access key", kw: []string{"aws", "akia", "asia"}, lower: true,
		re:    lazyre.New(`(?:^|[^A-Za-z0-9/+=])(?P<s>[A-Za-z0-9/+]{40})(?:[^A-Za-z0-9/+=]|$)`),
		valid: func(s, _ string) bool { return looksRandom(s, 3) && strings.ContainsAny(s, "0123456789") }},
	{kind: "stripe_webhook_secret", reason: "Stripe webhook signing secret", kw: []string{"whsec_"},
		re: lazyre.New(`\b(?P<s>whsec_[A-Za-z0-9+/=]{16,})`)},
	{kind: "azure_storage_key", reason: "Azure storage account key", kw: []string{"accountkey"}, lower: true,
		re: lazyre.New(`(?i:AccountKey)\s*=\s*(?P<s>[A-Za-z0-9+/]{20,}={0,2})`)},
	{kind: "azure_client_secret", reason: "Azure AD client secret", kw: []string{"8Q~"},
		re: lazyre.New(`(?:^|[^A-Za-z0-9_~.\-])(?P<s>[A-Za-z0-9_~.\-]{3}8Q~[A-Za-z0-9_~.\-]{31,40})`)},
	{kind: "azure_sas_signature", reason: "Azure shared access signature", kw: []string{"sig="},
		re:    lazyre.New(`(?:[?&;\s"']|^)sig=(?P<s>[A-Za-z0-9%+/=]{16,})`),
		valid: func(s, _ string) bool { return looksRandom(s, 2) }},
	{kind: "gcp_client_secret", reason: "Google OAuth client secret", kw: []string{"GOCSPX-"},
		re: lazyre.New(`\b(?P<s>GOCSPX-[A-Za-z0-9_\-]{20,})`)},
	{kind: "sendgrid_key", reason: "SendGrid API key", kw: []string{"SG."},
		re: lazyre.New(`\b(?P<s>SG\.[A-Za-z0-9_\-]{16,32}\.[A-Za-z0-9_\-]{16,64})`)},
	{kind: "vault_token", reason: "HashiCorp Vault token", kw: []string{"hvs.", "hvb.", "hvr."},
		re: lazyre.New(`\b(?P<s>hv[sbr]\.[A-Za-z0-9_\-]{20,})`)},
	{kind: "telegram_bot_token", reason: "Telegram bot token", kw: []string{":AA"},
		re: lazyre.New(`(?:\b|\bbot)(?P<s>\d{6,12}:AA[A-Za-z0-9_\-]{30,40})`)},
	{kind: "twilio_key", reason: "Twilio API key or account SID", kw: []string{"SK", "AC"},
		re: lazyre.New(`\b(?P<s>(?:SK|AC)[0-9a-fA-F]{32})\b`)},
	{kind: "twilio_auth_token", reason: "Twilio auth token", kw: []string{"twilio"}, lower: true,
		re: lazyre.New(`(?i:twilio)[^\n]{0,80}?\b(?P<s>[0-9a-f]{32})\b`)},
	{kind: "shopify_token", reason: "Shopify access token", kw: []string{"shpat_", "shpss_", "shpca_", "shppa_"},
		re: lazyre.New(`\b(?P<s>shp(?:at|ss|ca|pa)_[A-Fa-f0-9]{32})`)},
	{kind: "github_token", reason: "GitHub token", kw: []string{"ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"},
		re: lazyre.New(`\b(?P<s>(?:(?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{30,255}|github_pat_[A-Za-z0-9_]{22,255}))\b`)},
	{kind: "gitlab_token", reason: "GitLab personal access token", kw: []string{"glpat-"},
		re: lazyre.New(`\b(?P<s>glpat-[A-Za-z0-9_\-]{20,})`)},
	{kind: "slack_webhook", reason: "Slack webhook URL", kw: []string{"hooks.slack.com"},
		re: lazyre.New(`(?P<s>https?://hooks\.slack\.com/(?:services|workflows|triggers)/[A-Za-z0-9_/\-]{8,})`)},
	{kind: "slack_token", reason: "Slack token", kw: []string{"xox", "xapp-"},
		re: lazyre.New(`\b(?P<s>(?:xox[abposr]-[A-Za-z0-9\-]{10,}|xapp-\d-[A-Za-z0-9\-]{10,}))`)},
	{kind: "stripe_key", reason: "Stripe secret key", kw: []string{"_live_", "_test_"},
		re: lazyre.New(`\b(?P<s>(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{10,})`)},
	{kind: "google_api_key", reason: "Google API key", kw: []string{"AIza"},
		re: lazyre.New(`\b(?P<s>AIza[0-9A-Za-z_\-]{35})` + tokenTail)},
	{kind: "npm_token", reason: "npm access token", kw: []string{"npm_"},
		re: lazyre.New(`\b(?P<s>npm_[A-Za-z0-9]{36})\b`)},
	{kind: "pypi_token", reason: "PyPI API token", kw: []string{"pypi-AgE"},
		re: lazyre.New(`\b(?P<s>pypi-AgE[A-Za-z0-9_\-]{40,})`)},
	{kind: "huggingface_token", reason: "Hugging Face token", kw: []string{"hf_"},
		re:    lazyre.New(`\b(?P<s>hf_[A-Za-z0-9]{30,})\b`),
		valid: func(s, _ string) bool { return looksRandom(s[3:], 2) }},
	{kind: "jwt", reason: "JSON Web Token", kw: []string{"eyJ"},
		re: lazyre.New(`\b(?P<s>eyJ[A-Za-z0-9_\-]{8,}\.eyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]*)`)},
	{kind: "bearer_token", reason: "Authorization bearer token", kw: []string{"bearer", "token"}, lower: true,
		re: lazyre.New(`(?i)(?P<ctx>authorization["']?\s*[:=]\s*["']?\s*)?\b(?:bearer|token)\s+(?P<s>(?:[A-Za-z0-9\-._~+/]|%[0-9A-Fa-f]{2}){8,}=*)`),
		valid: func(s, ctx string) bool {
			return (ctx != "" || looksRandom(s, 2) && hasDigit(s)) && !placeholderWords(strings.ToLower(s))
		}},
	{kind: "basic_auth", reason: "Authorization basic credentials", kw: []string{"basic"}, lower: true,
		re: lazyre.New(`(?i)(?P<ctx>authorization["']?\s*[:=]\s*["']?\s*|-u\s+\S+\s+-H\s+["']?)?\bbasic\s+(?P<s>[A-Za-z0-9+/]{6,}=*)`),
		valid: func(s, ctx string) bool {
			return ctx != "" || (strings.HasSuffix(s, "=") && len(s) >= 12)
		}},
	{kind: "url_password", reason: "password embedded in a URL", kw: []string{"://"},
		re:    lazyre.New(`\b[A-Za-z][A-Za-z0-9+.\-]*://[^\s:/?#@"'<>]*:(?P<s>[^\s"'<>]+)@[A-Za-z0-9.\-\[\]_]+(?:[:/?#\s"'<>,;)]|$)`),
		valid: func(s, _ string) bool { return !isPlaceholderPassword(s) }},
	// Generic: an assignment to a name that says it holds a secret
	// (DB_PASSWORD=…, SECRET_KEY: …, "api_token": "…", export X_TOKEN=…).
	{kind: "secret_assignment", reason: "value assigned to a secret-named variable", kw: []string{"pass", "pwd", "secret", "token", "key", "cred", "auth", "psk"}, lower: true, need: ":=",
		re:    lazyre.New(`(?i)(?P<ctx>\b[A-Za-z0-9_.\-]*(?:pass(?:word|wd|phrase)?|pwd|psk|secret|token|api[_\-]?key|apikey|access[_\-]?key|private[_\-]?key|secret[_\-]?key|signing[_\-]?key|encryption[_\-]?key|master[_\-]?key|client[_\-]?secret|credentials?|_key)[A-Za-z0-9_\-]*)["']?\s*(?::=|=|:)\s*["'\x60]?(?P<s>[^\s"'\x60,;]{3,})`),
		valid: validAssignment},
	// Generic: a long random-looking token (upper, lower and digits, high
	// entropy) is a credential whatever its prefix.
	{kind: "high_entropy_token", reason: "long random-looking token (probable credential)",
		re: lazyre.New(`(?:^|[^A-Za-z0-9+/=_\-])(?P<ctx>(?i:sha(?:1|224|256|384|512)[\-:~]|md5-|h1:|blake2b-|sha3-\d+-))?(?P<s>[A-Za-z0-9+/_\-]{32,}={0,2})(?:[^A-Za-z0-9+/=_\-]|$)`),
		// a content hash after its algorithm (lockfile integrity
		// sha512-…, go.sum h1:…) is not a credential
		valid: func(s, ctx string) bool { return ctx == "" && highEntropy(s) }},
	// "the password is: X", "password was hunter2"
	{kind: "password_statement", reason: "a password stated in prose", kw: []string{"pass", "pwd", "passcode", "pin"}, lower: true,
		re:    lazyre.New(`(?i)(?P<ctx>\b(?:password|passwd|passphrase|passcode|pwd|pin)\b(?: for [\w.\-]+)?\s+(?:is|was|=)\s*(?::\s*)?)["'\x60]?(?P<s>[^\s"'\x60]{3,})`),
		valid: validStatedPassword},
}

// callExpr is a value that is a function call cut at its parenthesis
// (getpass.getpass(, os.getenv(, input(): letters, '_' and '.', no digit.
var callExpr = lazyre.New(`^[A-Za-z_][A-Za-z_.]*\($`)

// sshPublicKeyBlob reports the base64 of an SSH public key (the
// authorized_keys form "ssh-ed25519 AAAAC3Nza…"): a length-prefixed key
// type name. Public, not a credential.
func sshPublicKeyBlob(s string) bool {
	if !strings.HasPrefix(s, "AAAA") || len(s) < 24 {
		return false
	}
	dec, err := base64.StdEncoding.DecodeString(s[:24])
	if err != nil || len(dec) < 8 {
		return false
	}
	t := string(dec[4:])
	return strings.HasPrefix(t, "ssh-") || strings.HasPrefix(t, "ecdsa-") || strings.HasPrefix(t, "sk-ssh-") || strings.HasPrefix(t, "sk-ecdsa-")
}

var wordsThenHex = lazyre.New(`^/?[a-z]+(?:[_\-/][a-z]+)*[_\-/][0-9a-f]+$`)

// highEntropy reports a token with upper- and lowercase letters and digits
// whose characters carry at least 4.2 bits of entropy each, and no path
// shape (a '/' between words).
func highEntropy(s string) bool {
	s = strings.TrimRight(s, "=")
	// Lowercase words joined to a hex tail (untrusted_content_69d0…,
	// build-cache-3f2a…) are a name with an id: the hex alone is never
	// flagged (two character classes), and the joining '_' must not make
	// it a third.
	if wordsThenHex.MatchString(s) || namePath(s) || bitcoinAddress(s) || sshPublicKeyBlob(s) {
		return false
	}
	if len(s) < 32 || !looksRandom(s, 3) || !hasDigit(s) || strings.Count(s, "/") > 2 || strings.Count(s, "-")+strings.Count(s, "_") > len(s)/8 {
		return false
	}
	var freq [256]int
	for i := 0; i < len(s); i++ {
		freq[s[i]]++
	}
	h := 0.0
	n := float64(len(s))
	for _, c := range freq {
		if c > 0 {
			p := float64(c) / n
			h -= p * math.Log2(p)
		}
	}
	if h < 4.2 {
		return false
	}
	// base64 of readable text is data, not a key
	for _, enc := range []*base64.Encoding{base64.RawStdEncoding, base64.RawURLEncoding} {
		if dec, err := enc.DecodeString(s[:len(s)/4*4]); err == nil && utf8.Valid(dec) && mostlyPrintable(dec) {
			return false
		}
	}
	return true
}

// validAssignment accepts a secret-named assignment whose value is not a
// placeholder, a reference, a boolean or a number; names that only hint
// at a key (…_KEY, …_TOKEN) need a value that looks random.
func validAssignment(s, ctx string) bool {
	s = strings.TrimRight(s, ".)]}")
	if len(s) < 3 || isPlaceholderPassword(s) || proseWord(s) {
		return false
	}
	l := strings.ToLower(s)
	switch l {
	case "true", "false", "null", "none", "nil", "yes", "no", "on", "off", "required", "optional", "string", "str", "env", "undefined", "redacted":
		return false
	}
	if pathLike.MatchString(l) || callExpr.MatchString(s) {
		return false
	}
	if strings.Contains(l, "://") || strings.HasPrefix(l, "/") || strings.HasPrefix(l, "~") || strings.HasPrefix(l, "./") ||
		strings.HasSuffix(l, ".json") || strings.HasSuffix(l, ".pem") || strings.HasSuffix(l, ".yaml") || strings.HasSuffix(l, ".yml") {
		return false
	}
	if strings.HasPrefix(l, "[redacted") || strings.HasPrefix(l, "os.") || strings.HasPrefix(l, "process.") || strings.HasPrefix(l, "env.") ||
		strings.HasPrefix(l, "getenv") || strings.HasPrefix(l, "secrets.") || strings.HasPrefix(l, "vault:") || strings.HasPrefix(l, "(") {
		return false
	}
	allDigits := strings.Trim(s, "0123456789") == ""
	n := strings.ToLower(ctx)
	if strings.Contains(n, "pass") || strings.Contains(n, "pwd") {
		return !allDigits || len(s) >= 4
	}
	if allDigits {
		return false
	}
	// _KEY / _TOKEN / _SECRET / auth: random-looking or long
	return len(s) >= 8 && (looksRandom(s, 2) && hasDigit(s) || len(s) >= 20 && looksRandom(s, 2)) ||
		len(s) >= 12 && looksRandom(s, 3) && !wordsLike(s)
}

// validStatedPassword accepts "password is: X" always (the colon announces
// a value) and "password is X" when X looks like a password rather than a
// word ("the password is stored in Vault").
func validStatedPassword(s, ctx string) bool {
	s = strings.TrimRight(s, ".,;:!?)")
	if len(s) < 3 || isPlaceholderPassword(s) || callExpr.MatchString(s) {
		return false
	}
	if strings.HasSuffix(strings.TrimSpace(ctx), ":") || strings.HasSuffix(strings.TrimSpace(ctx), "=") {
		return true
	}
	return looksRandom(s, 2) && (hasDigit(s) || strings.ContainsAny(s, "!@#$%^&*_-+=~?"))
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
	return placeholderWords(l)
}

// placeholderMarks are what example values in documentation and templates
// carry ("sk-123XXXXXXXX", "your_api_key_here", "r8-not-a-real-token",
// "example-api-key"). Such a value is left as it is: it protects nothing
// and hiding it spoils the documentation. "changeme" and the like are
// placeholders too: a template's published default is no secret.
var placeholderMarks = []string{"xxxx", "example", "placeholder", "changeme", "change_me", "change-me", "replace_me", "replace-me",
	"replaceme", "not-a-real", "not_a_real", "notareal", "your_", "your-", "yourkey", "yourtoken", "yoursecret", "dummy", "redacted",
	"<", "...", "here_", "_here", "-here"}

func placeholderWords(l string) bool {
	for _, m := range placeholderMarks {
		if strings.Contains(l, m) {
			return true
		}
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
			hits = appendMnemonics(hits, s)
			continue
		}
		hay := s
		if rule.lower {
			if lower == "" {
				lower = asciiLower(s)
			}
			hay = lower
		}
		found := len(rule.kw) == 0
		for _, k := range rule.kw {
			if strings.Contains(hay, k) {
				found = true
				break
			}
		}
		if !found || rule.need != "" && !strings.ContainsAny(s, rule.need) {
			continue
		}
		if rule.find != nil {
			if lower == "" {
				lower = asciiLower(s)
			}
			hits = rule.find(hits, s, lower)
			continue
		}
		hits = appendRuleHits(hits, rule, s)
	}
	hits = dropInPublicBlocks(hits, s)
	if len(hits) < 2 {
		return hits
	}
	sort.SliceStable(hits, func(i, j int) bool {
		if hits[i].start != hits[j].start {
			return hits[i].start < hits[j].start
		}
		return hits[i].end > hits[j].end
	})
	return mergeOverlapping(hits, func(h *secretHit) (int, *int) { return h.start, &h.end })
}

// appendRuleHits appends the hits of rule's pattern in s. When a match's
// value is rejected and holds a key ("label: password: x", "token:
// aws_session_token = x", "_authToken: //host/:_authToken=x"), the search
// resumes at that value rather than after it, so the key-value pair
// inside it is still found.
func appendRuleHits(hits []secretHit, rule *secretRule, s string) []secretHit {
	names := rule.re.SubexpNames()
	pos := 0
	for pos < len(s) {
		m := rule.re.FindStringSubmatchIndex(s[pos:])
		if m == nil {
			break
		}
		for i := range m {
			if m[i] >= 0 {
				m[i] += pos
			}
		}
		a, b := m[0], m[1]
		// the secret is the first group named "s" that matched, its
		// context the first group named "ctx" that matched
		found, ctx := false, ""
		for gi, name := range names {
			if m[2*gi] < 0 {
				continue
			}
			if name == "s" && !found {
				a, b, found = m[2*gi], m[2*gi+1], true
			} else if name == "ctx" && ctx == "" {
				ctx = s[m[2*gi]:m[2*gi+1]]
			}
		}
		keyLike := isKeyName(s, a, b)
		if rule.valid != nil && !rule.valid(s[a:b], ctx) || assignsKey[rule.kind] && keyLike {
			// resume inside a value that holds a key (at most once a
			// match, the value starting after the match: linear)
			if a > m[0] && assignsKey[rule.kind] && (keyLike || strings.ContainsAny(strings.TrimRight(s[a:b], "="), "=:")) {
				pos = a
			} else {
				pos = max(m[1], m[0]+1)
			}
			continue
		}
		hits = append(hits, secretHit{rule.kind, rule.reason, a, b})
		pos = max(m[1], m[0]+1)
	}
	return hits
}

// assignsKey are the kinds whose value may itself be the next key name
// ("label: password: x", "pwd: DB_PASSWORD=x").
var assignsKey = map[string]bool{"secret_assignment": true, "password_statement": true}

// isKeyName reports whether s[a:b], a value, is a key: it ends with a
// colon, or an assignment follows it.
func isKeyName(s string, a, b int) bool {
	v := s[a:b]
	if strings.HasSuffix(v, ":") && !strings.HasSuffix(v, "::") {
		return true
	}
	r := strings.TrimLeft(s[b:], `"'`)
	r = strings.TrimLeft(r, " \t")
	return strings.HasPrefix(r, "=") && !strings.HasPrefix(r, "==") || strings.HasPrefix(r, ":") && !strings.HasPrefix(r, "://") && !strings.HasPrefix(r, "::")
}

var pemBegin = lazyre.New(`-*\s*BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?\s*-*`)
var pemEnd = lazyre.New(`-*\s*END (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?\s*-*`)
var pathLike = lazyre.New(`^[\w\-./]*[/.][\w\-]+\.(?:go|py|js|ts|tsx|rb|rs|java|kt|json|ya?ml|toml|txt|md|pem|key|crt|env|sh|cfg|conf|ini|sql|lock)$`)
var puttyBegin = lazyre.New(`PuTTY-User-Key-File-\d+:`)
var puttyEnd = lazyre.New(`Private-MAC:\s*[0-9A-Fa-f]*`)

var publicBegin = lazyre.New(`-----BEGIN (?:[A-Z0-9]+ )*(?:PUBLIC KEY(?: BLOCK)?|CERTIFICATE(?: REQUEST)?|X509 CRL|SIGNATURE|(?:DH|EC) PARAMETERS)-----`)
var publicEnd = lazyre.New(`-----END (?:[A-Z0-9]+ )*(?:PUBLIC KEY(?: BLOCK)?|CERTIFICATE(?: REQUEST)?|X509 CRL|SIGNATURE|(?:DH|EC) PARAMETERS)-----`)

// dropInPublicBlocks removes the long-random-token hits that lie inside a
// PEM block of public material (a public key, certificate, CRL,
// signature): its base64 lines are random but protect nothing. Named
// credentials inside such a block are kept.
func dropInPublicBlocks(hits []secretHit, s string) []secretHit {
	if len(hits) == 0 || !strings.Contains(s, "-----BEGIN ") {
		return hits
	}
	blocks := appendBlocks(nil, s, publicBegin, publicEnd, "", "")
	if len(blocks) == 0 {
		return hits
	}
	out := hits[:0]
	for _, h := range hits {
		inside := false
		for _, b := range blocks {
			if h.kind == "high_entropy_token" && h.start >= b.start && h.end <= b.end {
				inside = true
				break
			}
		}
		if !inside {
			out = append(out, h)
		}
	}
	return out
}

func appendPEM(hits []secretHit, s string, rule *secretRule) []secretHit {
	hits = appendPuTTY(hits, s)
	if !strings.Contains(s, "BEGIN") || !strings.Contains(s, "PRIVATE KEY") {
		return hits
	}
	return appendBlocks(hits, s, pemBegin, pemEnd, rule.kind, rule.reason)
}

// appendPuTTY redacts a PuTTY private key file from its header line to the
// end of its Private-MAC line (or to the end of the text when it has none).
func appendPuTTY(hits []secretHit, s string) []secretHit {
	if !strings.Contains(s, "PuTTY-User-Key-File") {
		return hits
	}
	return appendBlocks(hits, s, puttyBegin, puttyEnd, "putty_private_key", "PuTTY private key file")
}

// appendBlocks appends a hit for every block of s from a match of begin to
// the end of the next match of end; a block with no end runs to the end of
// the text (unterminated: redacting to the end is the safe side).
func appendBlocks(hits []secretHit, s string, begin, end *lazyre.Regexp, kind, reason string) []secretHit {
	pos := 0
	for pos < len(s) {
		m := begin.FindStringIndex(s[pos:])
		if m == nil {
			break
		}
		a, b := pos+m[0], len(s)
		if e := end.FindStringIndex(s[pos+m[1]:]); e != nil {
			b = pos + m[1] + e[1]
		}
		hits = append(hits, secretHit{kind, reason, a, b})
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
// as one span, invisible characters included. When the text holds
// non-ASCII characters, the secrets are also looked for in its NFKC form
// with look-alike letters folded (case kept), so fullwidth "ＡＫＩＡ…" or a
// Cyrillic "А" inside a key is found, and the whole original span redacted.
func credentialFindings(st strippedText) []Finding {
	hits := findSecrets(st.s)
	type span struct {
		kind, reason string
		a, b         int // original offsets
	}
	var spans []span
	for _, h := range hits {
		spans = append(spans, span{h.kind, h.reason, st.orig(h.start), st.orig(h.end-1) + 1})
	}
	if !plainASCII(st.s) {
		fv := foldedSecretView(st)
		for _, h := range findSecrets(fv.s) {
			a := int(fv.start[h.start])
			b := int(fv.end[h.end-1])
			spans = append(spans, span{h.kind, h.reason, a, b})
		}
	}
	if len(spans) == 0 {
		return nil
	}
	sort.SliceStable(spans, func(i, j int) bool {
		if spans[i].a != spans[j].a {
			return spans[i].a < spans[j].a
		}
		return spans[i].b > spans[j].b
	})
	out := make([]Finding, 0, len(spans))
	for _, h := range spans {
		if n := len(out); n > 0 && h.a < out[n-1].End {
			if h.b > out[n-1].End {
				out[n-1].End = h.b
			}
			continue
		}
		out = append(out, Finding{Kind: KindCredential, Rule: h.kind, Severity: Block, Start: h.a, End: h.b,
			Match: "[REDACTED:" + h.kind + "]", Reason: h.reason + " (redacted)"})
	}
	return out
}

// foldedSecretView is the stripped text in NFKC with look-alike letters
// folded to ASCII, case preserved, each byte mapped to its original span.
func foldedSecretView(st strippedText) matchView {
	s := st.s
	var v matchView
	buf := make([]byte, 0, len(s))
	v.start = make([]int32, 0, len(s))
	v.end = make([]int32, 0, len(s))
	it := newNFKCRunes(st)
	for r, os, oe, ok := it.next(); ok; r, os, oe, ok = it.next() {
		if r >= utf8.RuneSelf {
			if f, ok := confusables[unicode.ToLower(r)]; ok && f < utf8.RuneSelf && f != '\'' && f != '"' {
				if unicode.IsUpper(r) {
					f = unicode.ToUpper(f)
				}
				r = f
			}
		}
		buf = v.put(buf, r, os, oe, true)
	}
	v.s = string(buf)
	return v
}

// Redact replaces every credential in text with [REDACTED:<kind>] and
// returns the redacted text and the credential findings. Secrets split by
// invisible characters are found and redacted whole.
func Redact(text string) (string, []Finding) {
	_, st := charPass(text, nil)
	fs := credentialFindings(st)
	return redactSpans(text, fs), fs
}
