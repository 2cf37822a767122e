// Package testcreds generates synthetic credentials of every kind the
// scanner must redact, for tests of the scanner and of every write path
// (memcore, the CLI). The values are random with a fixed seed; none is a
// real credential.
package testcreds

import (
	"fmt"
	"math/rand/v2"
	"strings"
)

const (
	alnum  = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
	upnum  = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
	b64set = alnum + "+/"
	urlset = alnum + "-_"
)

func randStr(rng *rand.Rand, set string, n int) string {
	for {
		b := make([]byte, n)
		for i := range b {
			b[i] = set[rng.IntN(len(set))]
		}
		s := string(b)
		// make sure random strings mix character classes like real keys do
		if n < 12 || !strings.ContainsAny(set, "abc") || !strings.ContainsAny(set, "ABC") ||
			strings.ContainsAny(s, "0123456789") && strings.ContainsAny(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZ") && strings.ContainsAny(s, "abcdefghijklmnopqrstuvwxyz") {
			return s
		}
	}
}

// Cred is a synthetic credential: text is what appears in the input,
// secret the bytes that must not survive redaction.
type Cred struct {
	// Kind is the finding rule expected (alternatives separated by "|").
	Kind string
	// Env is a variable name used in config contexts.
	Env string
	// Label is a prose label.
	Label string
	// Text is what appears in the input.
	Text string
	// Secret is the bytes that must not survive redaction.
	Secret string
}

// Creds returns one or more credentials of every kind.
func Creds(seed uint64) []Cred {
	rng := rand.New(rand.NewPCG(seed, 7))
	var cs []Cred
	add := func(kind, env, label, text, secret string) {
		cs = append(cs, Cred{kind, env, label, text, secret})
	}
	simple := func(kind, env, label, tok string) { add(kind, env, label, tok, tok) }
	simple("openai_key", "OPENAI_API_KEY", "OpenAI key", "sk-"+randStr(rng, alnum, 48))
	simple("openai_key", "OPENAI_API_KEY", "OpenAI project key", "sk-proj-"+randStr(rng, urlset, 120))
	simple("anthropic_key", "ANTHROPIC_API_KEY", "Anthropic key", "sk-ant-api03-"+randStr(rng, urlset, 93)+"AA")
	simple("aws_access_key", "AWS_ACCESS_KEY_ID", "AWS access key id", "AKIA"+randStr(rng, upnum, 16))
	simple("aws_access_key", "AWS_ACCESS_KEY_ID", "AWS session key id", "ASIA"+randStr(rng, upnum, 16))
	simple("aws_secret_key", "AWS_SECRET_ACCESS_KEY", "AWS secret key", randStr(rng, b64set, 40))
	for _, p := range []string{"ghp_", "gho_", "ghu_", "ghs_", "ghr_"} {
		simple("github_token", "GITHUB_TOKEN", "GitHub token", p+randStr(rng, alnum, 36))
	}
	simple("github_token", "GH_TOKEN", "GitHub fine-grained token", "github_pat_"+randStr(rng, alnum, 22)+"_"+randStr(rng, alnum, 59))
	simple("gitlab_token", "GITLAB_TOKEN", "GitLab token", "glpat-"+randStr(rng, urlset, 20))
	for _, p := range []string{"xoxb-", "xoxp-", "xoxa-", "xoxr-"} {
		simple("slack_token", "SLACK_TOKEN", "Slack token", p+fmt.Sprint(rng.IntN(900000000000)+100000000000)+"-"+fmt.Sprint(rng.IntN(900000000000)+100000000000)+"-"+randStr(rng, alnum, 24))
	}
	simple("slack_token", "SLACK_APP_TOKEN", "Slack app token", "xapp-1-A"+randStr(rng, upnum, 10)+"-"+fmt.Sprint(rng.IntN(900000000)+100000000)+"-"+strings.ToLower(randStr(rng, "abcdef0123456789", 64)))
	hookPath := "T" + randStr(rng, upnum, 8) + "/B" + randStr(rng, upnum, 8) + "/" + randStr(rng, alnum, 24)
	add("slack_webhook", "SLACK_WEBHOOK_URL", "Slack webhook", "https://hooks.slack.com/services/"+hookPath, hookPath)
	simple("stripe_key", "STRIPE_SECRET_KEY", "Stripe key", "sk_live_"+randStr(rng, alnum, 24))
	simple("stripe_key", "STRIPE_RESTRICTED_KEY", "Stripe restricted key", "rk_live_"+randStr(rng, alnum, 24))
	simple("stripe_key", "STRIPE_TEST_KEY", "Stripe test key", "sk_test_"+randStr(rng, alnum, 24))
	simple("google_api_key", "GOOGLE_API_KEY", "Google API key", "AIza"+randStr(rng, urlset, 35))
	simple("npm_token", "NPM_TOKEN", "npm token", "npm_"+randStr(rng, alnum, 36))
	simple("pypi_token", "PYPI_TOKEN", "PyPI token", "pypi-AgEIcHlwaS5vcmc"+randStr(rng, urlset, 60))
	simple("huggingface_token", "HF_TOKEN", "Hugging Face token", "hf_"+randStr(rng, alnum, 34))
	jwt := "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIx" + randStr(rng, urlset, 30) + "." + randStr(rng, urlset, 43)
	simple("jwt", "SESSION_JWT", "session JWT", jwt)
	var pem, body strings.Builder
	pem.WriteString("-----BEGIN RSA PRIVATE KEY-----\n")
	for range 6 {
		line := randStr(rng, b64set, 64)
		pem.WriteString(line + "\n")
		body.WriteString(line)
	}
	pem.WriteString("-----END RSA PRIVATE KEY-----")
	// the secret is the key material; the BEGIN/END armour is not secret
	add("pem_private_key", "PRIVATE_KEY", "private key", pem.String(), body.String())
	l1, l2 := randStr(rng, b64set, 70), randStr(rng, b64set, 70)
	ossh := "-----BEGIN OPENSSH PRIVATE KEY-----\n" + l1 + "\n" + l2 + "\n-----END OPENSSH PRIVATE KEY-----"
	add("pem_private_key", "SSH_KEY", "ssh key", ossh, l1+"\n"+l2)
	bt := randStr(rng, urlset, 40)
	add("bearer_token", "AUTH_HEADER", "auth header", "Authorization: Bearer "+bt, bt)
	bb := "YWRtaW46" + randStr(rng, alnum, 16) + "=="
	add("basic_auth", "AUTH_HEADER", "auth header", "Authorization: Basic "+bb, bb)
	pw := "S3" + randStr(rng, alnum, 14) + "!x"
	add("url_password", "DATABASE_URL", "database URL", "postgres://admin:"+pw+"@db.example.com:5432/app", pw)
	pw2 := randStr(rng, alnum, 18)
	add("url_password", "REDIS_URL", "redis URL", "redis://default:"+pw2+"@cache.internal:6379/0", pw2)
	// the kinds issue 11 found reaching disk
	simple("stripe_webhook_secret", "STRIPE_WEBHOOK_SECRET", "Stripe webhook secret", "whsec_"+randStr(rng, alnum, 32))
	ak := randStr(rng, b64set, 86) + "=="
	add("azure_storage_key", "AZURE_STORAGE_CONNECTION_STRING", "storage connection string",
		"DefaultEndpointsProtocol=https;AccountName=acct"+strings.ToLower(randStr(rng, alnum, 6))+";AccountKey="+ak+";EndpointSuffix=core.windows.net", ak)
	simple("azure_client_secret", "AZURE_CLIENT_SECRET", "Azure client secret", randStr(rng, alnum, 3)+"8Q~"+randStr(rng, urlset+"~.", 34))
	sig := randStr(rng, alnum, 30) + "%2B" + randStr(rng, alnum, 10) + "%3D"
	add("azure_sas_signature", "AZURE_SAS_URL", "SAS URL", "https://acct.blob.core.windows.net/c/f.txt?sv=2022-11-02&ss=b&srt=o&sp=r&se=2026-12-01T00:00:00Z&sig="+sig, sig)
	simple("gcp_client_secret", "GOOGLE_CLIENT_SECRET", "Google OAuth client secret", "GOCSPX-"+randStr(rng, urlset, 28))
	for _, name := range []string{"DB_PASSWORD", "SECRET_KEY", "API_TOKEN"} {
		v := randStr(rng, alnum, 24)
		add("secret_assignment|password_statement", "APP_CONFIG", "setting", name+"="+v, v)
	}
	pwp := "Tr0ub4dor&" + randStr(rng, alnum, 6)
	add("password_statement|secret_assignment", "NOTE", "note", "the password is: "+pwp, pwp)
	pr := randStr(rng, alnum, 20)
	add("url_password", "REDIS_URL", "redis URL without user", "redis://:"+pr+"@cache.internal:6379", pr)
	pm := randStr(rng, alnum, 8) + "/" + randStr(rng, alnum, 8)
	add("url_password", "MYSQL_URL", "MySQL URL", "mysql://root:"+pm+"@db.internal:3306/app", pm)
	pa := "Pa" + randStr(rng, alnum, 6) + "@ss" + randStr(rng, alnum, 6)
	add("url_password", "AMQP_URL", "AMQP URL", "amqp://guest:"+pa+"@rabbit.internal:5672/", pa)
	var pem4 strings.Builder
	pem4.WriteString("----BEGIN PRIVATE KEY----\n")
	l4 := randStr(rng, b64set, 64)
	pem4.WriteString(l4 + "\n----END PRIVATE KEY----")
	add("pem_private_key", "PRIVATE_KEY", "private key (four dashes)", pem4.String(), l4)
	pub := randStr(rng, b64set, 64)
	priv := randStr(rng, b64set, 64)
	putty := "PuTTY-User-Key-File-3: ssh-ed25519\nEncryption: none\nComment: deploy\nPublic-Lines: 1\n" + pub + "\nPrivate-Lines: 1\n" + priv + "\nPrivate-MAC: " + strings.ToLower(randStr(rng, "abcdef0123456789", 64))
	add("putty_private_key", "PUTTY_KEY", "PuTTY key", putty, priv)
	simple("sendgrid_key", "SENDGRID_API_KEY", "SendGrid key", "SG."+randStr(rng, urlset, 22)+"."+randStr(rng, urlset, 43))
	simple("vault_token", "VAULT_TOKEN", "Vault token", "hvs."+randStr(rng, urlset, 90))
	simple("telegram_bot_token", "TELEGRAM_BOT_TOKEN", "Telegram bot token", fmt.Sprint(rng.IntN(900000000)+1000000000)+":AA"+randStr(rng, urlset, 33))
	simple("twilio_key", "TWILIO_API_KEY", "Twilio API key", "SK"+strings.ToLower(randStr(rng, "abcdef0123456789", 32)))
	simple("shopify_token", "SHOPIFY_ACCESS_TOKEN", "Shopify token", "shpat_"+strings.ToLower(randStr(rng, "abcdef0123456789", 32)))
	far := randStr(rng, b64set, 39) + "7"
	add("aws_secret_key", "NOTE", "note", "aws account for staging was rotated after the incident review last week; the new secret access value is "+far, far)
	return cs
}

// Fullwidth maps printable ASCII (except space) to the fullwidth forms.
func Fullwidth(s string) string {
	return strings.Map(func(r rune) rune {
		if r > ' ' && r < 0x7F {
			return r + 0xFEE0
		}
		return r
	}, s)
}

// Leaks returns a substring of secret (8+ bytes) that survives in s.
//
// Pieces are 8 characters (runes), so fullwidth secrets are checked as
// whole characters too.
func Leaks(s, secret string) string {
	rs := []rune(strings.ReplaceAll(secret, "\n", ""))
	for i := 0; i+8 <= len(rs); i++ {
		if p := string(rs[i : i+8]); strings.Contains(s, p) {
			return p
		}
	}
	return ""
}

// ZeroWidthSplit inserts U+200B U+2060 in the middle of secret inside text.
func ZeroWidthSplit(text, secret string) string {
	mid := len(text) / 2
	if i := strings.Index(text, secret); i >= 0 {
		mid = i + len(secret)/2
	}
	for mid > 0 && mid < len(text) && text[mid]&0xC0 == 0x80 {
		mid--
	}
	return text[:mid] + "\u200b\u2060" + text[mid:]
}

// Variants returns the text as written, split by zero-width characters,
// and in fullwidth forms, with the secret to look for in each.
func Variants(c Cred) []struct{ Name, Text, Secret string } {
	return []struct{ Name, Text, Secret string }{
		{"plain", c.Text, c.Secret},
		{"zero_width_split", ZeroWidthSplit(c.Text, c.Secret), c.Secret},
		{"fullwidth", Fullwidth(c.Text), Fullwidth(c.Secret)},
	}
}
