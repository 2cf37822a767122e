package scan

import (
	_ "embed"
	"strings"
	"sync"

	"github.com/odekmem/odekmem/internal/lazyre"
)

// Credentials by name and by shape, beyond secrets.go: more vendors'
// prefixed tokens, and the generic shapes gitleaks looks for — a value
// next to a key-like name (pw:, auth=, -p after mysql, curl -u user:pass),
// .netrc and docker config entries, hex private keys next to a key-like
// word, and BIP-39 recovery phrases.

// vendorSecretRules are tokens a vendor prefixes (and some a vendor's
// name must accompany).
var vendorSecretRules = []secretRule{
	{kind: "digitalocean_token", reason: "DigitalOcean token", kw: []string{"dop_v1_", "doo_v1_", "dor_v1_"},
		re: lazyre.New(`\b(?P<s>do[opr]_v1_[a-f0-9]{64})\b`)},
	{kind: "databricks_token", reason: "Databricks access token", kw: []string{"dapi"},
		re: lazyre.New(`\b(?P<s>dapi[a-f0-9]{32}(?:-\d)?)\b`)},
	{kind: "atlassian_token", reason: "Atlassian API token", kw: []string{"ATATT", "ATCTT"},
		re: lazyre.New(`\b(?P<s>AT[AC]TT[A-Za-z0-9_\-=]{40,})`)},
	{kind: "atlassian_token", reason: "Atlassian API token", kw: []string{"atlassian", "jira", "confluence", "bitbucket"}, lower: true,
		re:    lazyre.New(`(?i:atlassian|jira|confluence|bitbucket)[^\n]{0,60}?[=:"'\s]\s*["']?(?P<s>[A-Za-z0-9]{24})(?:[^A-Za-z0-9]|$)`),
		valid: func(s, _ string) bool { return looksRandom(s, 3) }},
	{kind: "heroku_key", reason: "Heroku API key", kw: []string{"HRKU-"},
		re: lazyre.New(`\b(?P<s>HRKU-[A-Za-z0-9_\-]{30,})`)},
	{kind: "heroku_key", reason: "Heroku API key", kw: []string{"heroku"}, lower: true,
		re: lazyre.New(`(?i:heroku)[^\n]{0,60}?\b(?P<s>[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12})\b`)},
	{kind: "datadog_key", reason: "Datadog API or application key", kw: []string{"datadog", "dd_api", "dd-api", "dd_app", "dd-app", "dd_application", "dd-application"}, lower: true,
		re:    lazyre.New(`(?i:datadog|dd[_\-]api|dd[_\-]app(?:lication)?)[^\n]{0,60}?\b(?P<s>[a-f0-9]{32}|[a-f0-9]{40})\b`),
		valid: func(s, _ string) bool { return hasDigit(s) && strings.Trim(s, "0123456789") != "" }},
	{kind: "postman_key", reason: "Postman API key", kw: []string{"PMAK-"},
		re: lazyre.New(`\b(?P<s>PMAK-[a-f0-9]{24}-[a-f0-9]{34})\b`)},
	{kind: "newrelic_key", reason: "New Relic key", kw: []string{"NRAK-", "NRII-", "NRJS-", "NRAL"},
		re: lazyre.New(`\b(?P<s>NRAK-[A-Z0-9]{27}|NRII-[A-Za-z0-9_\-]{32}|NRJS-[a-f0-9]{19}|[a-f0-9]{36}NRAL)\b`)},
	{kind: "supabase_key", reason: "Supabase access token or secret key", kw: []string{"sbp_", "sb_secret_"},
		re: lazyre.New(`\b(?P<s>sbp_[a-f0-9]{40}|sb_secret_[A-Za-z0-9_\-]{20,})`)},
	{kind: "sk_hex_key", reason: "API key with an sk- prefix (hex)", kw: []string{"sk-"},
		re: lazyre.New(`\b(?P<s>sk-[a-f0-9]{32,})\b`)},
	{kind: "linear_key", reason: "Linear API key", kw: []string{"lin_api_"},
		re: lazyre.New(`\b(?P<s>lin_api_[A-Za-z0-9]{40})\b`)},
	{kind: "doppler_token", reason: "Doppler token", kw: []string{"dp.pt.", "dp.st.", "dp.sa.", "dp.ct."},
		re: lazyre.New(`\b(?P<s>dp\.(?:pt|st|sa|ct)\.[A-Za-z0-9]{40,44})\b`)},
	{kind: "flyio_token", reason: "Fly.io token", kw: []string{"fo1_", "FlyV1 "},
		re: lazyre.New(`\b(?P<s>fo1_[A-Za-z0-9_\-]{43}|FlyV1 fm\d_[A-Za-z0-9+/=_\-,]{100,})`)},
	{kind: "planetscale_token", reason: "PlanetScale token or password", kw: []string{"pscale_"},
		re: lazyre.New(`\b(?P<s>pscale_(?:tkn|oauth|pw)_[A-Za-z0-9_.\-]{32,64})`)},
	{kind: "pulumi_token", reason: "Pulumi access token", kw: []string{"pul-"},
		re: lazyre.New(`\b(?P<s>pul-[a-f0-9]{40})\b`)},
	{kind: "grafana_token", reason: "Grafana token", kw: []string{"glc_", "glsa_"},
		re: lazyre.New(`\b(?P<s>glc_[A-Za-z0-9+/]{32,}={0,2}|glsa_[A-Za-z0-9]{32}_[A-Fa-f0-9]{8})`)},
	{kind: "sentry_token", reason: "Sentry token", kw: []string{"sntrys_", "sntryu_"},
		re: lazyre.New(`\b(?P<s>sntrys_[A-Za-z0-9+/=_\-]{50,}|sntryu_[a-f0-9]{64})`)},
	{kind: "mailgun_key", reason: "Mailgun API key", kw: []string{"key-"},
		re: lazyre.New(`\b(?P<s>key-[a-f0-9]{32})\b`)},
	{kind: "mailchimp_key", reason: "Mailchimp API key", kw: []string{"-us"},
		re: lazyre.New(`\b(?P<s>[a-f0-9]{32}-us\d{1,2})\b`)},
	{kind: "square_token", reason: "Square access token or secret", kw: []string{"sq0atp-", "sq0csp-", "EAAA"},
		re: lazyre.New(`\b(?P<s>sq0atp-[A-Za-z0-9_\-]{22}|sq0csp-[A-Za-z0-9_\-]{43}|EAAA[A-Za-z0-9_\-]{60})`)},
	{kind: "notion_token", reason: "Notion integration token", kw: []string{"secret_", "ntn_"},
		re: lazyre.New(`\b(?P<s>secret_[A-Za-z0-9]{43}|ntn_[A-Za-z0-9]{46})\b`)},
	{kind: "airtable_token", reason: "Airtable personal access token", kw: []string{"pat"},
		re: lazyre.New(`\b(?P<s>pat[A-Za-z0-9]{14}\.[a-f0-9]{64})\b`)},
	{kind: "terraform_token", reason: "Terraform Cloud token", kw: []string{".atlasv1."},
		re: lazyre.New(`\b(?P<s>[A-Za-z0-9]{14}\.atlasv1\.[A-Za-z0-9_\-]{60,})`)},
	{kind: "alibaba_key", reason: "Alibaba Cloud access key id", kw: []string{"LTAI"},
		re: lazyre.New(`\b(?P<s>LTAI[A-Za-z0-9]{20})\b`)},
	{kind: "replicate_token", reason: "Replicate API token", kw: []string{"r8_"},
		re: lazyre.New(`\b(?P<s>r8_[A-Za-z0-9]{37})\b`)},
	{kind: "groq_key", reason: "Groq API key", kw: []string{"gsk_"},
		re: lazyre.New(`\b(?P<s>gsk_[A-Za-z0-9]{52})\b`)},
	{kind: "xai_key", reason: "xAI API key", kw: []string{"xai-"},
		re: lazyre.New(`\b(?P<s>xai-[A-Za-z0-9]{80})\b`)},
	{kind: "perplexity_key", reason: "Perplexity API key", kw: []string{"pplx-"},
		re: lazyre.New(`\b(?P<s>pplx-[A-Za-z0-9]{48})\b`)},
	{kind: "age_secret_key", reason: "age secret key", kw: []string{"AGE-SECRET-KEY-1"},
		re: lazyre.New(`\b(?P<s>AGE-SECRET-KEY-1[0-9A-Z]{58})\b`)},
	{kind: "discord_token", reason: "Discord bot token", kw: []string{"."},
		re:    lazyre.New(`\b(?P<s>[MNO][A-Za-z\d]{23,25}\.[A-Za-z\d_\-]{6}\.[A-Za-z\d_\-]{27,38})\b`),
		valid: func(s, _ string) bool { return looksRandom(s, 3) }},
	{kind: "dropbox_token", reason: "Dropbox access token", kw: []string{"sl."},
		re: lazyre.New(`\b(?P<s>sl\.[A-Za-z0-9_\-]{130,})`)},
}

// genericSecretRules find secrets by their shape and what sits next to
// them.
var genericSecretRules = []secretRule{
	// mysql -pSECRET, mysqldump --password=SECRET, sshpass -p SECRET,
	// redis-cli -a SECRET
	{kind: "cli_password", reason: "password on a command line", kw: []string{"mysql", "mariadb", "sshpass", "redis-cli", "--password", "-p"}, lower: true,
		re:    lazyre.New(`(?i)(?P<ctx>\b(?:mysql|mysqldump|mysqladmin|mysqlimport|mysqlsh|mariadb|mariadb-dump)\b[^\n|;&]{0,120}?\s-p|\bsshpass\s+-p\s*|\bredis-cli\b[^\n|;&]{0,80}?\s-a\s+|--password[= ])["']?(?P<s>[^\s"'\x60]{3,})`),
		valid: func(s, _ string) bool { return !isPlaceholderPassword(s) && !strings.HasPrefix(s, "-") }},
	// curl -u user:pass, curl --user user:pass, wget --http-password=x,
	// http -a user:pass
	{kind: "cli_password", reason: "password in command-line credentials", kw: []string{"curl", "-u", "--user", "http-password", "http -a", "https -a"}, lower: true,
		re:    lazyre.New(`(?i)(?:\b(?:curl|http|https|wget)\b[^\n|;&]{0,200}?\s(?:-u|--user|-a|--auth)[ =]?["']?[^\s:'"]+:|--http-password[= ]|--proxy-user[ =]["']?[^\s:'"]+:)(?P<s>[^\s'"\x60]{3,})`),
		valid: func(s, _ string) bool { return !isPlaceholderPassword(s) }},
	// pw: secret, pass = secret, auth: token (short key-like names the
	// secret-named assignment rule does not take)
	{kind: "secret_assignment", reason: "value assigned to a secret-named key", kw: []string{"pw", "pass", "auth"}, lower: true, need: ":=",
		re:    lazyre.New(`(?i)(?:^|[^A-Za-z0-9_.\-])(?P<ctx>pw|pwd|pass|auth|auth[_\-]?token|authtoken|auth[_\-]?key|identitytoken|registrytoken)["']?\s*(?::=|=|:)\s*["'\x60]?(?P<s>[^\s"'\x60,;]{4,})`),
		valid: validShortAssignment},
	// Authorization: <scheme> <credential>, X-Api-Key: …, X-Auth-Key: …,
	// X-<Vendor>-Token: …
	{kind: "auth_header", reason: "credential in an authorization header", kw: []string{"authorization", "x-"}, lower: true,
		re: lazyre.New(`(?i)\b(?:proxy-)?authorization["']?\s*[:=]\s*["']?(?:[A-Za-z\-]+\s+)?(?P<s>[A-Za-z0-9\-._~+/]{12,}=*)|\bx-(?:[a-z0-9]+-)*(?:api-key|apikey|auth-key|auth-token|access-token|access-key|api-token|api-secret|secret-key|private-key|client-key|app-key|master-key|token|secret)["']?\s*[:=]\s*["']?(?P<s>[A-Za-z0-9\-._~+/]{12,}=*)`),
		valid: func(s, _ string) bool {
			return looksRandom(s, 2) && hasDigit(s) && !placeholderWords(strings.ToLower(s))
		}},
	// .netrc: machine host login user password SECRET
	{kind: "netrc_password", reason: ".netrc password", kw: []string{"machine", "password"}, lower: true,
		re:    lazyre.New(`(?i)\bmachine\s+\S+(?:\s+(?:login|account)\s+\S+)*\s+password\s+(?P<s>\S+)|(?im)^\s*password\s+(?P<s>\S+)\s*$`),
		valid: func(s, _ string) bool { return !isPlaceholderPassword(s) }},
	// docker config.json: "auth": "base64(user:pass)"
	{kind: "docker_auth", reason: "Docker registry credentials", kw: []string{"\"auth\""},
		re:    lazyre.New(`"auth"\s*:\s*"(?P<s>[A-Za-z0-9+/=]{8,})"`),
		valid: func(s, _ string) bool { return len(s) >= 12 }},
	// 64 hex digits (an Ethereum or other secp256k1 private key, a seed)
	// next to a key-like word
	{kind: "hex_private_key", reason: "hex private key", kw: []string{"key", "priv", "secret", "wallet", "seed", "mnemonic", "pk"}, lower: true,
		re: lazyre.New(`(?i)\b(?:private[_\- ]?key|priv[_\- ]?key|privkey|secret[_\- ]?key|signing[_\- ]?key|eth(?:ereum)?[_\- ]?(?:private[_\- ]?)?key|wallet(?:[_\- ]?(?:private[_\- ]?)?key)?|deployer[_\- ]?key|seed|mnemonic|pk\s*[:=])\b[^\n]{0,40}?(?:0x)?(?P<s>[a-fA-F0-9]{64})\b|(?i:private|secret|wallet|priv)[^\n]{0,60}?\b(?P<s>0x[a-fA-F0-9]{64})\b`)},
}

func init() {
	// Named vendor kinds before the generic ones, so a prefixed token
	// keeps its name when a generic rule also matches it.
	n := len(secretRules)
	generic := 0
	for i, r := range secretRules {
		if r.kind == "url_password" {
			generic = i
			break
		}
	}
	if generic == 0 {
		generic = n
	}
	rules := make([]secretRule, 0, n+len(vendorSecretRules)+len(gitleaksPrefixedRules)+len(genericSecretRules)+len(shapeSecretRules)+len(toolSecretRules))
	rules = append(rules, secretRules[:generic]...)
	rules = append(rules, vendorSecretRules...)
	rules = append(rules, gitleaksPrefixedRules...)
	rules = append(rules, secretRules[generic:]...)
	rules = append(rules, genericSecretRules...)
	rules = append(rules, shapeSecretRules...)
	rules = append(rules, toolSecretRules...)
	secretRules = rules
}

// validShortAssignment accepts a value assigned to pw/pass/auth unless it
// is a placeholder, a reference or a plain word; auth needs a
// random-looking value.
func validShortAssignment(s, ctx string) bool {
	if !validAssignment(s, "password") {
		return false
	}
	if c := strings.ToLower(ctx); strings.HasPrefix(c, "auth") || strings.HasSuffix(c, "token") {
		return len(s) >= 8 && looksRandom(s, 2) && hasDigit(s) || len(s) >= 12 && looksRandom(s, 3) && !wordsLike(s)
	}
	return true
}

//go:embed wordlists/bip39-english.txt
var bip39Text string

var bip39Words = sync.OnceValue(func() map[string]bool {
	m := make(map[string]bool, 2048)
	for _, w := range strings.Fields(bip39Text) {
		m[w] = true
	}
	return m
})

// appendMnemonics adds a hit for every run of 12 or more consecutive
// BIP-39 words (lowercase, separated by spaces, newlines, commas or
// numbering like "1." or "1)"), the shape of a wallet recovery phrase.
func appendMnemonics(hits []secretHit, s string) []secretHit {
	// cheap gate: a phrase needs at least 12 runs of lowercase letters
	words := 0
	for i := 0; i < len(s); i++ {
		if s[i] >= 'a' && s[i] <= 'z' && (i == 0 || s[i-1] < 'a' || s[i-1] > 'z') {
			words++
		}
	}
	if words < 12 {
		return hits
	}
	list := bip39Words()
	runStart, runEnd, n := -1, -1, 0
	seen := map[string]bool{}
	flush := func() {
		// a phrase is 12-24 words drawn from 2,048 and nearly all
		// distinct; "long task long task …" is not one
		if n >= 12 && len(seen)*4 >= n*3 {
			hits = append(hits, secretHit{"bip39_mnemonic", "wallet recovery phrase (BIP-39 words)", runStart, runEnd})
		}
		runStart, runEnd, n = -1, -1, 0
		clear(seen)
	}
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c >= 'a' && c <= 'z':
			j := i
			for j < len(s) && s[j] >= 'a' && s[j] <= 'z' {
				j++
			}
			if j < len(s) && (s[j] >= 'A' && s[j] <= 'Z' || s[j] >= '0' && s[j] <= '9' || s[j] == '_' || s[j] == '-' || s[j] == '\'') || !list[s[i:j]] {
				flush()
			} else {
				if runStart < 0 {
					runStart = i
				}
				runEnd = j
				n++
				seen[s[i:j]] = true
			}
			i = j
		case c == ' ' || c == '\n' || c == '\t' || c == ',' || c == '\r':
			i++
		case c >= '0' && c <= '9':
			// list numbering: "1." "12)" "3:" between words
			j := i
			for j < len(s) && s[j] >= '0' && s[j] <= '9' {
				j++
			}
			if j < len(s) && (s[j] == '.' || s[j] == ')' || s[j] == ':') {
				j++
			}
			i = j
		default:
			flush()
			i++
		}
	}
	flush()
	return hits
}
