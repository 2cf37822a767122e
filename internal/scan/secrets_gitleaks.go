package scan

import (
	"encoding/base64"
	"math"
	"strings"
	"sync"

	"github.com/odekmem/odekmem/internal/lazyre"
)

// The credential kinds of gitleaks' default configuration
// (github.com/gitleaks/gitleaks, config/gitleaks.toml, MIT licence,
// copyright Zachary Rice), ported as shapes: the prefixes, character sets
// and lengths its rules describe, written afresh as our own patterns and
// validators (no pattern is copied). Kinds secrets.go and secrets_more.go
// already name are not repeated here. See testdata/credentials/README.md.

// gitleaksPrefixedRules are the tokens a vendor marks with a prefix.
var gitleaksPrefixedRules = []secretRule{
	{kind: "onepassword_key", reason: "1Password secret key or service account token", kw: []string{"A3-", "ops_eyJ"},
		re: lazyre.New(`\b(?P<s>A3-[A-Z0-9]{6}-(?:[A-Z0-9]{11}|[A-Z0-9]{6}-[A-Z0-9]{5})-[A-Z0-9]{5}-[A-Z0-9]{5}-[A-Z0-9]{5}|ops_eyJ[A-Za-z0-9+/]{200,}={0,3})`)},
	{kind: "adobe_client_secret", reason: "Adobe client secret", kw: []string{"p8e-"},
		re: lazyre.New(`\b(?P<s>p8e-[A-Za-z0-9]{32})\b`)},
	{kind: "artifactory_key", reason: "JFrog Artifactory API key or reference token", kw: []string{"AKCp", "cmVmd"},
		re: lazyre.New(`\b(?P<s>AKCp[A-Za-z0-9]{60,80}|cmVmd[A-Za-z0-9]{55,64})\b`)},
	{kind: "authress_key", reason: "Authress service client key", kw: []string{".acc_", ".acc-"},
		re: lazyre.New(`\b(?P<s>(?:sc|ext|scauth|authress)_[A-Za-z0-9]{5,30}\.[A-Za-z0-9]{4,6}\.acc[_\-][A-Za-z0-9\-]{10,32}\.[A-Za-z0-9+/_=\-]{30,120})`)},
	{kind: "aws_access_key", reason: "AWS access key id", kw: []string{"A3T"},
		re: lazyre.New(`\b(?P<s>A3T[A-Z0-9][A-Z0-9]{16})\b`)},
	{kind: "aws_bedrock_key", reason: "Amazon Bedrock API key", kw: []string{"ABSK", "bedrock-api-key-"},
		re: lazyre.New(`\b(?P<s>ABSK[A-Za-z0-9+/]{100,280}={0,2}|bedrock-api-key-YmVkcm9jay5hbWF6b25hd3MuY29t[A-Za-z0-9+/=%&_\-]*)`)},
	{kind: "azure_client_secret", reason: "Azure AD client secret", kw: []string{"Q~"},
		re: lazyre.New(`(?:^|[^A-Za-z0-9_~.\-])(?P<s>[A-Za-z0-9_~.]{3}\dQ~[A-Za-z0-9_~.\-]{31,40})`)},
	{kind: "clickhouse_key", reason: "ClickHouse Cloud API secret", kw: []string{"4b1d"},
		re: lazyre.New(`\b(?P<s>4b1d[A-Za-z0-9]{38})\b`)},
	{kind: "clojars_token", reason: "Clojars deploy token", kw: []string{"clojars_"}, lower: true,
		re: lazyre.New(`(?i)\b(?P<s>CLOJARS_[a-z0-9]{60})`)},
	{kind: "cloudflare_origin_ca_key", reason: "Cloudflare origin CA key", kw: []string{"v1.0-"},
		re: lazyre.New(`\b(?P<s>v1\.0-[a-f0-9]{24}-[a-f0-9]{140,150})`)},
	{kind: "duffel_token", reason: "Duffel API token", kw: []string{"duffel_"},
		re: lazyre.New(`\b(?P<s>duffel_(?:test|live)_[A-Za-z0-9_\-=]{40,46})`)},
	{kind: "dynatrace_token", reason: "Dynatrace API token", kw: []string{"dt0c01."},
		re: lazyre.New(`\b(?P<s>dt0c01\.[A-Za-z0-9]{24}\.[A-Za-z0-9]{64})`)},
	{kind: "easypost_key", reason: "EasyPost API key", kw: []string{"EZAK", "EZTK"},
		re: lazyre.New(`\b(?P<s>EZ[AT]K[A-Za-z0-9]{54})\b`)},
	{kind: "facebook_token", reason: "Facebook access token", kw: []string{"EAA"},
		re:    lazyre.New(`\b(?P<s>EAA[MC][A-Za-z0-9]{100,})`),
		valid: func(s, _ string) bool { return hasDigit(s) }},
	{kind: "facebook_token", reason: "Facebook app access token", kw: []string{"facebook", "fb_", "fb-"}, lower: true,
		re: lazyre.New(`\b(?P<s>\d{15,16}(?:\||%7[Cc])[0-9A-Za-z\-_]{27,40})`)},
	{kind: "flutterwave_key", reason: "Flutterwave key", kw: []string{"FLWSECK", "FLWPUBK"},
		re: lazyre.New(`\b(?P<s>FLW(?:SECK|PUBK)_TEST-[a-hA-H0-9]{12,32}(?:-X)?)`)},
	{kind: "flyio_token", reason: "Fly.io token", kw: []string{"fm1", "fm2"},
		re: lazyre.New(`\b(?P<s>fm(?:1[ar]|2)_[A-Za-z0-9+/]{100,}={0,3})`)},
	{kind: "frameio_token", reason: "Frame.io API token", kw: []string{"fio-u-"},
		re: lazyre.New(`\b(?P<s>fio-u-[A-Za-z0-9\-_=]{64})`)},
	{kind: "gitlab_token", reason: "GitLab token", kw: []string{"glcbt-", "gldt-", "glffct-", "glft-", "glrt-", "glsoat-", "glimt-", "glagent-", "gloas-", "glptt-", "GR1348941", "_gitlab_session="},
		re: lazyre.New(`\b(?P<s>glcbt-[0-9A-Za-z]{1,5}_[0-9A-Za-z_\-]{20,}|gl(?:dt|ffct|ft|rt|soat|imt)-[0-9A-Za-z_\-]{20,}|glagent-[0-9A-Za-z_\-]{50,}|gloas-[0-9A-Za-z_\-]{64,}|glptt-[0-9a-f]{40}|GR1348941[0-9A-Za-z_\-]{20,})|_gitlab_session=(?P<s>[0-9a-z]{32})`)},
	{kind: "gitlab_token", reason: "GitLab routable token", kw: []string{"glpat-", "glrt-"},
		re: lazyre.New(`\b(?P<s>gl(?:pat|rt)-[0-9A-Za-z_\-]{20,300}\.[0-9a-z]{9})\b`)},
	{kind: "grafana_token", reason: "Grafana API key", kw: []string{"eyJrIjoi"},
		re: lazyre.New(`\b(?P<s>eyJrIjoi[A-Za-z0-9]{60,400}={0,3})`)},
	{kind: "harness_key", reason: "Harness API key", kw: []string{"pat.", "sat."},
		re: lazyre.New(`\b(?P<s>(?:pat|sat)\.[A-Za-z0-9_\-]{22}\.[A-Za-z0-9]{24}\.[A-Za-z0-9]{20})`)},
	{kind: "huggingface_token", reason: "Hugging Face organisation token", kw: []string{"api_org_"},
		re: lazyre.New(`\b(?P<s>api_org_[A-Za-z]{34})\b`)},
	{kind: "infracost_token", reason: "Infracost API token", kw: []string{"ico-"},
		re: lazyre.New(`\b(?P<s>ico-[A-Za-z0-9]{32})\b`)},
	{kind: "intra42_secret", reason: "42 intranet client secret", kw: []string{"s-s4t2"},
		re: lazyre.New(`\b(?P<s>s-s4t2(?:ud|af)-[a-f0-9]{64})`)},
	{kind: "maxmind_key", reason: "MaxMind licence key", kw: []string{"_mmk"},
		re: lazyre.New(`\b(?P<s>[A-Za-z0-9]{6}_[A-Za-z0-9]{29}_mmk)\b`)},
	{kind: "teams_webhook", reason: "Microsoft Teams webhook URL", kw: []string{"webhook.office.com"},
		re: lazyre.New(`(?P<s>https://[A-Za-z0-9\-]+\.webhook\.office\.com/webhookb2/[^\s"'<>]{20,})`)},
	{kind: "nuget_password", reason: "NuGet config password", kw: []string{"<add key="}, lower: true,
		re: lazyre.New(`(?i)<add\s+key="(?:cleartext)?password"\s+value="(?P<s>[^"]{4,})"`)},
	{kind: "octopus_key", reason: "Octopus Deploy API key", kw: []string{"API-"},
		re:    lazyre.New(`\b(?P<s>API-[A-Z0-9]{26})\b`),
		valid: func(s, _ string) bool { return hasDigit(s[4:]) }},
	{kind: "openshift_token", reason: "OpenShift user token", kw: []string{"sha256~"},
		re: lazyre.New(`\b(?P<s>sha256~[A-Za-z0-9_\-]{43})`)},
	{kind: "prefect_token", reason: "Prefect API token", kw: []string{"pnu_"},
		re: lazyre.New(`\b(?P<s>pnu_[A-Za-z0-9]{36})\b`)},
	{kind: "readme_token", reason: "ReadMe API token", kw: []string{"rdme_"},
		re: lazyre.New(`\b(?P<s>rdme_[a-z0-9]{70})\b`)},
	{kind: "rubygems_token", reason: "RubyGems API token", kw: []string{"rubygems_"},
		re: lazyre.New(`\b(?P<s>rubygems_[a-f0-9]{48})\b`)},
	{kind: "scalingo_token", reason: "Scalingo API token", kw: []string{"tk-us-"},
		re: lazyre.New(`\b(?P<s>tk-us-[A-Za-z0-9_\-]{48})`)},
	{kind: "sendinblue_key", reason: "Brevo (Sendinblue) API key", kw: []string{"xkeysib-", "xsmtpsib-"},
		re: lazyre.New(`\b(?P<s>x(?:key|smtp)sib-[a-f0-9]{64}-[A-Za-z0-9]{16})\b`)},
	{kind: "settlemint_token", reason: "SettleMint access token", kw: []string{"sm_aat_", "sm_pat_", "sm_sat_"},
		re: lazyre.New(`\b(?P<s>sm_(?:aat|pat|sat)_[A-Za-z0-9]{16})\b`)},
	{kind: "shippo_token", reason: "Shippo API token", kw: []string{"shippo_"},
		re: lazyre.New(`\b(?P<s>shippo_(?:live|test)_[a-fA-F0-9]{40})\b`)},
	{kind: "sidekiq_secret", reason: "Sidekiq Enterprise credentials", kw: []string{"contribsys"}, lower: true,
		re: lazyre.New(`(?i)BUNDLE_(?:ENTERPRISE|GEMS)__CONTRIBSYS__COM[^\n]{0,20}?[=:]\s*["']?(?P<s>[a-f0-9]{8}:[a-f0-9]{8})|https?://(?P<s>[a-f0-9]{8}:[a-f0-9]{8})@(?:gems|enterprise)\.contribsys\.com`)},
	{kind: "slack_token", reason: "Slack configuration token", kw: []string{"xoxe"},
		re: lazyre.New(`\b(?P<s>xoxe(?:\.xox[bp])?-\d-[A-Za-z0-9]{100,})`)},
	{kind: "sourcegraph_token", reason: "Sourcegraph access token", kw: []string{"sgp_"},
		re: lazyre.New(`\b(?P<s>sgp_(?:(?:[a-fA-F0-9]{16}|local)_)?[a-fA-F0-9]{40})\b`)},
	{kind: "stripe_key", reason: "Stripe secret key", kw: []string{"_prod_"},
		re: lazyre.New(`\b(?P<s>(?:sk|rk)_prod_[A-Za-z0-9]{10,99})\b`)},
	{kind: "typeform_token", reason: "Typeform API token", kw: []string{"tfp_"},
		re: lazyre.New(`\b(?P<s>tfp_[A-Za-z0-9\-_.=]{59})`)},
	{kind: "vault_token", reason: "HashiCorp Vault token (legacy)", kw: []string{"s."},
		re:    lazyre.New(`\b(?P<s>s\.[A-Za-z0-9]{24})\b`),
		valid: func(s, _ string) bool { return looksRandom(s[2:], 3) }},
	{kind: "yandex_key", reason: "Yandex Cloud token or key", kw: []string{"t1.", "AQVN"},
		re: lazyre.New(`\b(?P<s>t1\.[A-Za-z0-9_\-]+={0,2}\.[A-Za-z0-9_\-]{86}={0,2}|AQVN[A-Za-z0-9_\-]{35,38})`)},
	{kind: "jwt", reason: "base64-encoded JSON Web Token", kw: []string{"ZXlK"},
		re: lazyre.New(`\b(?P<s>ZXlK[A-Za-z0-9+/]{56,}={0,2})`)},
	{kind: "jwt", reason: "JSON Web Token", kw: []string{"ey"},
		re: lazyre.New(`\b(?P<s>ey[A-Za-z0-9]{17,}\.ey[A-Za-z0-9/\\_\-]{17,}\.(?:[A-Za-z0-9/\\_\-]{10,}={0,2})?)`)},
	// private keys in other encodings: a PEM block in base64 (Kubernetes
	// secrets, CI variables), a BIP-32 extended private key, a WIF key next
	// to a key word
	{kind: "pem_private_key_base64", reason: "base64-encoded PEM private key", kw: []string{"LS0tLS1CRUdJTi"},
		re:    lazyre.New(`(?P<s>LS0tLS1CRUdJTi[A-Za-z0-9+/]{20,}={0,2})`),
		valid: base64PEMPrivate},
	{kind: "bip32_private_key", reason: "BIP-32 extended private key", kw: []string{"xprv", "tprv", "yprv", "zprv"},
		re: lazyre.New(`\b(?P<s>[xtyz]prv[1-9A-HJ-NP-Za-km-z]{100,112})\b`)},
	{kind: "wif_private_key", reason: "Bitcoin WIF private key", kw: []string{"wif", "priv", "key", "wallet", "secret"}, lower: true,
		re:    lazyre.New(`(?i:wif|priv|key|wallet|secret)[^\n]{0,40}?\b(?P<s>[5KL][1-9A-HJ-NP-Za-km-z]{50,51})\b`),
		valid: func(s, _ string) bool { return looksRandom(s, 3) }},
	{kind: "gcp_service_account_key", reason: "Google service account private key id", kw: []string{"private_key_id"},
		re: lazyre.New(`"private_key_id"\s*:\s*"(?P<s>[a-f0-9]{40})"`)},
}

// base64PEMPrivate reports whether s, base64, begins a PEM private key
// block (and not a certificate or public key).
func base64PEMPrivate(s, _ string) bool {
	n := min(len(s), 80) / 4 * 4
	dec, err := base64.StdEncoding.DecodeString(s[:n])
	if err != nil {
		return false
	}
	d := string(dec)
	return strings.Contains(d, "PRIVATE") || !strings.Contains(d, "CERTIFICATE") && !strings.Contains(d, "PUBLIC")
}

// vendorKeywords are vendor and product names (gitleaks' keyword rules,
// and the vendors issue 22 names) that make the value assigned after them
// a credential when it is shaped like one: "ALGOLIA_ADMIN=…", "twitter
// consumer secret: …", "heroku_api: <uuid>". The value must look random
// (entropy, letters and digits interleaved); a UUID after a vendor name is
// taken, as gitleaks does. Names that are also everyday words (square,
// segment, render) are left out: their tokens have prefixes, and a
// secret-named key (…_KEY, …_TOKEN) is caught by the generic rule.
var vendorKeywords = []string{
	"adafruit", "adobe", "airtable", "algolia", "alibaba", "asana", "atlassian", "confluence", "jira",
	"beamer", "bitbucket", "bittrex", "meraki", "cloudflare", "codecov", "cohere", "co_api_key",
	"coinbase", "confluent", "contentful", "datadog", "dnkey", "discord", "droneci", "dropbox", "etsy",
	"facebook", "fastly", "finicity", "finnhub", "flickr", "freshbooks", "gitter", "gocardless",
	"heroku", "hubspot", "intercom", "jfrog", "artifactory", "bintray", "kraken", "kucoin",
	"launchdarkly", "linear", "linkedin", "lob_", "looker", "mailchimp", "mailgun", "mapbox",
	"mattermost", "messagebird", "message_bird", "netlify", "newrelic", "new_relic", "new-relic",
	"nytimes", "okta", "plaid", "private_ai", "privateai", "rapidapi", "sendbird", "sentry", "snyk",
	"sonar", "squarespace", "sumo", "telegr", "travis", "twitch", "twitter", "typeform", "yandex",
	"zendesk", "databricks", "digitalocean", "supabase", "postman", "vercel", "circleci", "buildkite",
	"pagerduty", "opsgenie", "mixpanel", "firebase", "pusher", "auth0", "postmark", "mandrill",
	"sparkpost", "plivo", "vonage", "nexmo", "braintree", "razorpay", "paystack", "pinecone",
	"weaviate", "qdrant", "ngrok", "tailscale", "snowflake", "linode", "vultr", "hetzner", "scaleway",
	"backblaze", "cloudinary", "contentstack", "storyblok", "huggingface", "openai", "anthropic",
	"mistral", "deepseek", "fivetran", "airbyte", "zapier",
}

// vendorAssign is what follows a vendor name before its value: up to 24
// characters of name, quotes, an assignment (= : := => ?= || , >) and
// opening quotes.
var vendorAssign = lazyre.New(`^[ \t\w.\-]{0,24}?["']{0,3}[ \t]{0,3}(?:=>|:{1,3}=|\?=|\|\||=|:|,|>)[\x60'"\s=]{0,5}([A-Za-z0-9_\-+/=.%~]{14,300})`)

// hexKeywords are the vendors whose keys are 40 or 64 hex digits, the
// length of a commit or content hash: after other names such a value is
// taken to be a hash.
var hexKeywords = map[string]bool{"meraki": true, "sendbird": true, "sentry": true, "discord": true, "datadog": true,
	"confluent": true, "freshbooks": true, "sumo": true, "coinbase": true, "newrelic": true, "new_relic": true, "new-relic": true}

// vendorByPrefix maps the first three letters of each vendor name to the
// names, so that the text is walked once rather than once a name.
var vendorByPrefix = sync.OnceValue(func() map[string][]string {
	m := map[string][]string{}
	for _, k := range vendorKeywords {
		m[k[:3]] = append(m[k[:3]], k)
	}
	return m
})

// appendVendorKeywords adds a hit for every credential-shaped value
// assigned after a vendor name in s (lower is s lowercased, ASCII only).
// A name is looked for where a run of letters starts (ALGOLIA_ADMIN,
// REACT_APP_ALGOLIA_KEY, "twitter").
func appendVendorKeywords(hits []secretHit, s, lower string) []secretHit {
	byPrefix := vendorByPrefix()
	for i := 0; i+3 <= len(lower); i++ {
		if c := lower[i]; c < 'a' || c > 'z' || i > 0 && lower[i-1] >= 'a' && lower[i-1] <= 'z' {
			continue
		}
		for _, kw := range byPrefix[lower[i:i+3]] {
			if !strings.HasPrefix(lower[i:], kw) {
				continue
			}
			from := i + len(kw)
			m := vendorAssign.FindStringSubmatchIndex(s[from:])
			if m == nil {
				continue
			}
			a, b := from+m[2], from+m[3]
			if b < len(s) && (s[b] == ':' || s[b] == '@') { // user:pass@ is the URL rule's
				continue
			}
			v := s[a:b]
			if !vendorValue(v) {
				continue
			}
			if isHexString(v) && (len(v) == 40 || len(v) == 64) && !hexKeywords[kw] {
				continue
			}
			hits = append(hits, secretHit{"vendor_secret", "secret assigned to a vendor-named setting (" + kw + ")", a, b})
		}
	}
	return hits
}

func isHexString(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i] | 0x20
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return s != ""
}

// vendorValue reports whether s, assigned to a vendor-named setting, is
// shaped like a credential: no placeholder, path, URL, version or name
// made of words; random-looking (letters and digits interleaved) or a
// UUID or hex key.
func vendorValue(s string) bool {
	s = strings.TrimRight(s, ".")
	if len(s) < 14 || isPlaceholderPassword(s) || strings.Contains(s, "//") || pathLike.MatchString(s) {
		return false
	}
	if isUUID(s) {
		return true
	}
	// a 16-19 digit client id (Asana, Discord): public-ish, but gitleaks
	// takes it and it is cheap to hide
	if len(s) >= 16 && len(s) <= 19 && strings.Trim(s, "0123456789") == "" {
		return true
	}
	return secretLooking(s, 14)
}

// secretLooking is the generic test of a value: at least min characters,
// letters and digits interleaved (several letter/digit changes, not one
// trailing number), not a name made of words, and at least 3 bits of
// entropy a character.
func secretLooking(s string, minLen int) bool {
	core := strings.TrimRight(s, "=")
	if len(core) < minLen || !hasDigit(core) || strings.Trim(core, "0123456789") == "" {
		return false
	}
	if wordsLike(core) {
		return false
	}
	changes := 0
	for i := 1; i < len(core); i++ {
		if isDigitByte(core[i]) != isDigitByte(core[i-1]) && isAlnumByte(core[i]) && isAlnumByte(core[i-1]) {
			changes++
		}
	}
	if changes < 3 {
		return false
	}
	return entropy(core) >= 3.0
}

// wordsLike reports a value made of words and numbers joined by - _ . or
// case changes ("my-app-prod-2024", "release_v1.2.3", "StagingBucket2").
func wordsLike(s string) bool {
	segs := strings.FieldsFunc(s, func(r rune) bool { return r == '-' || r == '_' || r == '.' || r == '/' })
	if len(segs) < 2 {
		return false
	}
	for _, g := range segs {
		if strings.Trim(g, "0123456789") != "" && strings.Trim(g, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ") != "" {
			return false
		}
	}
	return true
}

func isDigitByte(c byte) bool { return c >= '0' && c <= '9' }
func isAlnumByte(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

// isUUID reports the 8-4-4-4-12 hex form.
func isUUID(s string) bool {
	if len(s) != 36 {
		return false
	}
	for i := 0; i < 36; i++ {
		c := s[i]
		switch i {
		case 8, 13, 18, 23:
			if c != '-' {
				return false
			}
		default:
			if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F') {
				return false
			}
		}
	}
	return true
}

// entropy is the Shannon entropy of s in bits a character.
func entropy(s string) float64 {
	var freq [256]int
	for i := 0; i < len(s); i++ {
		freq[s[i]]++
	}
	h, n := 0.0, float64(len(s))
	for _, c := range freq {
		if c > 0 {
			p := float64(c) / n
			h -= p * math.Log2(p)
		}
	}
	return h
}
