// Package testcreds generates synthetic credentials of every kind the
// scanner must redact, for tests of the scanner and of every write path
// (memcore, the CLI). The values are random with a fixed seed; none is a
// real credential.
package testcreds

import (
	"encoding/base64"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
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
	cs = append(cs, issue22Creds(rng)...)
	return cs
}

const hexset = "0123456789abcdef"

// issue22Creds are the formats issue 22 found reaching disk, more
// vendors' tokens, and credentials recognised by shape: a secret next to
// a key-like name, command-line passwords, .netrc and docker entries,
// connection strings, hex private keys, PGP and EC keys and recovery
// phrases.
func issue22Creds(rng *rand.Rand) []Cred {
	var cs []Cred
	add := func(kind, env, label, text, secret string) { cs = append(cs, Cred{kind, env, label, text, secret}) }
	simple := func(kind, env, label, tok string) { add(kind, env, label, tok, tok) }
	hex := func(n int) string { return randStr(rng, hexset, n) }
	simple("digitalocean_token", "DIGITALOCEAN_TOKEN", "DigitalOcean token", "dop_v1_"+hex(64))
	simple("databricks_token", "DATABRICKS_TOKEN", "Databricks token", "dapi"+hex(32))
	simple("atlassian_token", "JIRA_API_TOKEN", "Atlassian API token", "ATATT3xFfGF0"+randStr(rng, urlset, 170)+"="+strings.ToUpper(hex(8)))
	simple("heroku_key", "HEROKU_API_KEY", "Heroku API key", "HRKU-"+randStr(rng, urlset, 60))
	u := hex(8) + "-" + hex(4) + "-" + hex(4) + "-" + hex(4) + "-" + hex(12)
	add("heroku_key|secret_assignment", "HEROKU_API_KEY", "Heroku key", "heroku api key "+u, u)
	dd := hex(32)
	add("datadog_key|secret_assignment", "DD_API_KEY", "Datadog API key", "DD_API_KEY="+dd, dd)
	simple("postman_key", "POSTMAN_API_KEY", "Postman API key", "PMAK-"+hex(24)+"-"+hex(34))
	simple("newrelic_key", "NEW_RELIC_API_KEY", "New Relic user key", "NRAK-"+randStr(rng, upnum, 27))
	simple("newrelic_key", "NEW_RELIC_LICENSE_KEY", "New Relic license key", hex(36)+"NRAL")
	simple("supabase_key", "SUPABASE_ACCESS_TOKEN", "Supabase token", "sbp_"+hex(40))
	simple("sk_hex_key", "DEEPSEEK_API_KEY", "API key", "sk-"+hex(32))
	simple("linear_key", "LINEAR_API_KEY", "Linear key", "lin_api_"+randStr(rng, alnum, 40))
	simple("doppler_token", "DOPPLER_TOKEN", "Doppler token", "dp.st."+randStr(rng, alnum, 43))
	simple("grafana_token", "GRAFANA_TOKEN", "Grafana service account token", "glsa_"+randStr(rng, alnum, 32)+"_"+hex(8))
	simple("sentry_token", "SENTRY_AUTH_TOKEN", "Sentry user token", "sntryu_"+hex(64))
	simple("groq_key", "GROQ_API_KEY", "Groq key", "gsk_"+randStr(rng, alnum, 52))
	simple("replicate_token", "REPLICATE_API_TOKEN", "Replicate token", "r8_"+randStr(rng, alnum, 37))
	simple("pulumi_token", "PULUMI_ACCESS_TOKEN", "Pulumi token", "pul-"+hex(40))
	simple("mailgun_key", "MAILGUN_API_KEY", "Mailgun key", "key-"+hex(32))
	simple("square_token", "SQUARE_ACCESS_TOKEN", "Square token", "sq0atp-"+randStr(rng, urlset, 22))
	simple("notion_token", "NOTION_TOKEN", "Notion token", "ntn_"+randStr(rng, alnum, 46))
	simple("alibaba_key", "ALIBABA_ACCESS_KEY_ID", "Alibaba key", "LTAI"+randStr(rng, alnum, 20))
	simple("age_secret_key", "AGE_KEY", "age key", "AGE-SECRET-KEY-1"+randStr(rng, "QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L", 58))
	simple("planetscale_token", "PLANETSCALE_TOKEN", "PlanetScale token", "pscale_tkn_"+randStr(rng, alnum, 43))

	// by shape
	pw := func() string { return randStr(rng, alnum, 12) + "!" + randStr(rng, alnum, 3) }
	p := pw()
	add("cli_password", "DB_CMD", "mysql command", "mysql -u root -p"+p+" -h db.internal app", p)
	p = pw()
	add("cli_password|secret_assignment", "DUMP_CMD", "mysqldump command", "mysqldump --user=admin --password="+p+" shop > shop.sql", p)
	p = pw()
	add("cli_password|basic_auth", "CURL_CMD", "curl command", "curl -u deploy:"+p+" https://api.example.com/v1/releases", p)
	p = pw()
	add("cli_password", "SSH_CMD", "sshpass command", "sshpass -p '"+p+"' ssh ops@bastion", p)
	p = pw()
	add("netrc_password", "NETRC", ".netrc entry", "machine api.github.com login octocat password "+p, p)
	p = pw()
	add("netrc_password", "NETRC", ".netrc lines", "machine registry.example.com\n  login ci\n  password "+p, p)
	p = pw()
	add("secret_assignment|password_statement", "NOTE", "note", "pw: "+p, p)
	p = randStr(rng, alnum, 28)
	add("secret_assignment|auth_header|high_entropy_token", "NOTE", "note", "auth="+p, p)
	auth := base64.StdEncoding.EncodeToString([]byte("ci-bot:" + pw()))
	add("docker_auth|secret_assignment", "DOCKER_CONFIG", "docker config", `{"auths": {"ghcr.io": {"auth": "`+auth+`"}}}`, auth)
	tok := randStr(rng, alnum, 40)
	add("auth_header|bearer_token", "AUTH_HEADER", "auth header", "Authorization: token "+tok, tok)
	tok = randStr(rng, alnum, 32)
	add("auth_header|secret_assignment|high_entropy_token", "API_HEADER", "API header", "X-API-Key: "+tok, tok)
	p = pw()
	add("url_password", "MONGODB_URI", "MongoDB URI", "mongodb+srv://app:"+p+"@cluster0.ab1cd.mongodb.net/prod?retryWrites=true", p)
	p = pw()
	add("url_password", "DATABASE_URL", "Postgres URL", "postgresql://report:"+p+"@10.0.3.7:5432/warehouse", p)
	p = pw()
	add("url_password", "FTP_URL", "FTP URL", "ftp://upload:"+p+"@files.example.org/in/", p)
	eth := hex(64)
	add("hex_private_key", "ETH_PRIVATE_KEY", "wallet private key", "deployer private key: 0x"+eth, eth)
	eth = hex(64)
	add("hex_private_key|secret_assignment", "PRIVATE_KEY", "private key", "PRIVATE_KEY="+eth, eth)
	var pgp, pgpBody strings.Builder
	pgp.WriteString("-----BEGIN PGP PRIVATE KEY BLOCK-----\n\n")
	for range 4 {
		l := randStr(rng, b64set, 64)
		pgp.WriteString(l + "\n")
		pgpBody.WriteString(l)
	}
	pgp.WriteString("=" + randStr(rng, b64set, 4) + "\n-----END PGP PRIVATE KEY BLOCK-----")
	add("pem_private_key", "GPG_KEY", "PGP key", pgp.String(), pgpBody.String())
	ec := randStr(rng, b64set, 64)
	add("pem_private_key", "EC_KEY", "EC key", "-----BEGIN EC PRIVATE KEY-----\n"+ec+"\n-----END EC PRIVATE KEY-----", ec)
	var words []string
	for range 12 {
		words = append(words, bip39Sample[rng.IntN(len(bip39Sample))])
	}
	phrase := strings.Join(words, " ")
	add("bip39_mnemonic", "WALLET_SEED", "recovery phrase", phrase, phrase)

	// generic: key-like names with random values, the way gitleaks'
	// generic rule finds them
	names := []string{"password", "passwd", "pwd", "db_pass", "token", "secret", "api_key", "apikey", "access_key", "client_secret", "auth_token", "app_secret"}
	seps := []string{"=", ": ", " = ", "=\"", ": '"}
	for i, n := range names {
		v := randStr(rng, alnum, 16+rng.IntN(17))
		sep := seps[i%len(seps)]
		text := n + sep + v
		switch {
		case strings.HasSuffix(sep, "\""):
			text += "\""
		case strings.HasSuffix(sep, "'"):
			text += "'"
		}
		add("secret_assignment|password_statement|auth_header|high_entropy_token", "CONFIG", "setting", text, v)
	}
	return cs
}

// bip39Sample is a sample of the BIP-39 English word list, enough for
// synthetic recovery phrases: unusual words, so that an 8-character piece
// of a phrase does not also occur in the other test texts.
var bip39Sample = strings.Fields(`abandon absurd acoustic aerobic alcohol alley amateur amused anchor ankle antenna antique arctic
armor artefact asthma awkward bacon badge bamboo banana barrel basket beach bicycle blanket bronze bubble cabbage cactus
canoe carbon castle cereal chalk cherry chimney cinnamon clump coconut cricket crystal cushion dolphin donkey dragon eagle
elbow fossil garlic ginger giraffe glove gorilla hammer hamster harbor hedgehog jaguar kangaroo kidney ladder
lemon lizard lobster mango marble monkey mushroom napkin noodle olive orchard ostrich oyster panda parrot peanut pelican
pepper pigeon pumpkin puzzle rabbit raccoon rhythm saddle salmon sausage scorpion shrimp spider squirrel tomato tortoise
trumpet tunnel turkey turtle umbrella velvet volcano walnut weasel whale wrist yellow zebra`)

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

// MaskTimes replaces the RFC 3339 timestamps of text with "<time>": their
// nanosecond digits hold a given 8-digit piece of a hex secret now and
// then by chance (a CI run found "57293709" of a Shopify token in a
// quarantined_at), and no secret is ever stored in a timestamp.
func MaskTimes(text string) string { return timestamp.ReplaceAllString(text, "<time>") }

// Markers blanks the redaction markers ("[REDACTED:kind]") of text: a
// rule's name may spell a piece of a generated secret.
func Markers(text string) string { return redactionMarker.ReplaceAllString(text, "[]") }

var redactionMarker = regexp.MustCompile(`\[REDACTED:[a-z0-9_]+\]`)

// NoLeaks reports as a test error every secret an 8-character piece of
// which is in one of blobs (name → text; the first blob found is named)
// and returns how many leaked.
func NoLeaks(t testing.TB, secrets []string, blobs map[string]string) int {
	t.Helper()
	leaked := 0
	for _, s := range secrets {
		for name, b := range blobs {
			if l := Leaks(b, s); l != "" {
				leaked++
				t.Errorf("%q survives in %s", l, name)
				break
			}
		}
	}
	return leaked
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

// Files reads every regular file under dir, path → text, for a test to
// search for secrets that reached disk (unreadable entries are skipped).
// The store's own random identifiers — 32 hex digits in an id field or a
// chunk's file name, hex digests in hash fields — are masked wherever they
// appear: an 8-digit piece of a hex secret turns up in one of them now and
// then by chance (a CI run found "55cd1230" of a hex key inside a lane
// entry's id), and no secret is ever stored in them. Timestamps are masked
// too (MaskTimes).
func Files(dir string) map[string]string {
	out := map[string]string{}
	ids := map[string]bool{}
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			if m := generatedID.FindStringSubmatch(filepath.Base(p)); m != nil {
				ids[m[1]] = true
			}
			if b, err := os.ReadFile(p); err == nil {
				out[p] = string(b)
				for _, m := range idField.FindAllStringSubmatch(string(b), -1) {
					ids[m[1]] = true
				}
			}
		}
		return nil
	})
	for p, b := range out {
		out[p] = MaskTimes(b)
	}
	if len(ids) == 0 {
		return out
	}
	pairs := make([]string, 0, 2*len(ids))
	for id := range ids {
		pairs = append(pairs, id, "<id>")
	}
	r := strings.NewReplacer(pairs...)
	for p, b := range out {
		out[p] = r.Replace(b)
	}
	return out
}

var (
	// generatedID is a chunk's file name: the atom's id.
	generatedID = regexp.MustCompile(`^([0-9a-f]{32})\.md$`)
	// timestamp is an RFC 3339 time as the store writes it.
	timestamp = regexp.MustCompile(`\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:\d{2})`)
	// idField is a hex value of a JSON field that holds an id or a digest.
	idField = regexp.MustCompile(`"(?:[a-z_]*id|corpus|hash|checksum|digest|fingerprint)"\s*:\s*"(?:\d+:)?([0-9a-f]{16,64})"`)
)
