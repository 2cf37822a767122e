package scan_test

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/odekmem/odekmem/memcore/scan"
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

// cred is a synthetic credential: text is what appears in the input,
// secret the bytes that must not survive redaction.
type cred struct {
	kind   string
	env    string // variable name used in config contexts
	label  string // prose label
	text   string
	secret string
}

func synthCreds(seed uint64) []cred {
	rng := rand.New(rand.NewPCG(seed, 7))
	var cs []cred
	add := func(kind, env, label, text, secret string) {
		cs = append(cs, cred{kind, env, label, text, secret})
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
	simple("slack_webhook", "SLACK_WEBHOOK_URL", "Slack webhook", "https://hooks.slack.com/services/T"+randStr(rng, upnum, 8)+"/B"+randStr(rng, upnum, 8)+"/"+randStr(rng, alnum, 24))
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
	return cs
}

var contexts = []struct {
	name string
	f    func(c cred) string
}{
	{"prose", func(c cred) string { return "FYI the " + c.label + " is " + c.text + " so keep it handy." }},
	{"env", func(c cred) string { return "export " + c.env + "=" + c.text }},
	{"dotenv", func(c cred) string { return "# config\n" + c.env + "=" + c.text + "\nDEBUG=1" }},
	{"json", func(c cred) string {
		return `{"name": "svc", "` + strings.ToLower(c.env) + `": "` + strings.ReplaceAll(c.text, "\n", `\n`) + `"}`
	}},
	{"yaml", func(c cred) string {
		if strings.Contains(c.text, "\n") {
			return "service:\n  " + strings.ToLower(c.env) + ": |\n    " + strings.ReplaceAll(c.text, "\n", "\n    ") + "\n"
		}
		return "service:\n  " + strings.ToLower(c.env) + ": " + c.text + "\n  port: 8080\n"
	}},
}

// leaks returns a substring of secret (8+ bytes) that survives in s.
func leaks(s, secret string) string {
	secret = strings.ReplaceAll(secret, "\n", "")
	for i := 0; i+8 <= len(secret); i++ {
		if strings.Contains(s, secret[i:i+8]) {
			return secret[i : i+8]
		}
	}
	// multi-line secrets: also check each line
	return ""
}

func TestCredentialsSynthetic(t *testing.T) {
	creds := synthCreds(1)
	total, blocked, redacted := 0, 0, 0
	for _, c := range creds {
		for _, ctx := range contexts {
			for _, zw := range []bool{false, true} {
				text := c.text
				secret := c.secret
				name := c.kind + "/" + ctx.name
				if zw {
					// split the secret with zero-width characters
					mid := len(text) / 2
					if i := strings.Index(text, secret); i >= 0 {
						mid = i + len(secret)/2
					}
					text = text[:mid] + "\u200b\u2060" + text[mid:]
					name += "/zero_width_split"
				}
				in := ctx.f(cred{c.kind, c.env, c.label, text, secret})
				total++
				t.Run(name, func(t *testing.T) {
					r := scan.Scan(in)
					if !r.Blocked() {
						t.Errorf("not blocked: %q", in)
					} else {
						blocked++
					}
					f, ok := hasFinding(r, scan.KindCredential, c.kind)
					if !ok {
						t.Errorf("no credential/%s finding in %q; findings: %s", c.kind, in, kinds(r))
					} else if leaks(f.Match, secret) != "" {
						t.Errorf("Match leaks the secret: %q", f.Match)
					}
					if !strings.Contains(r.Redacted, "[REDACTED:"+c.kind+"]") {
						t.Errorf("Redacted lacks [REDACTED:%s]: %q", c.kind, r.Redacted)
					}
					if l := leaks(r.Redacted, secret); l != "" {
						t.Errorf("Redacted leaks %q: %q", l, r.Redacted)
					} else if zw && strings.Contains(r.Redacted, "\u200b") {
						t.Errorf("invisible characters inside the secret survived: %q", r.Redacted)
					} else {
						redacted++
					}
					for _, f := range r.Findings {
						if l := leaks(f.Match, secret); l != "" {
							t.Errorf("finding %s/%s leaks %q in Match", f.Kind, f.Rule, l)
						}
					}
					rd, fs := scan.Redact(in)
					if rd != r.Redacted || len(fs) == 0 {
						t.Errorf("Redact disagrees with Scan: %q vs %q", rd, r.Redacted)
					}
				})
			}
		}
	}
	t.Logf("synthetic credentials: %d inputs (%d kinds × %d contexts × plain/zero-width split): %d blocked, %d fully redacted",
		total, len(creds), len(contexts), blocked, redacted)
	if blocked != total || redacted != total {
		t.Errorf("synthetic credentials: blocked %d/%d, redacted %d/%d; want 100%%", blocked, total, redacted, total)
	}
}

func TestCredentialRules(t *testing.T) {
	cases := []struct {
		name, in, kind string
		blocked        bool
	}{
		{"openai_legacy", "key sk-" + strings.Repeat("aB3", 16), "openai_key", true},
		{"anthropic_not_openai", "sk-ant-api03-" + strings.Repeat("xY9_", 20), "anthropic_key", true},
		{"bearer_prose", "send Bearer eyX9aB3cD4eF5gH6iJ7k in the header", "bearer_token", true},
		{"bearer_header_curl", `curl -H "Authorization: Bearer abcdefghijklmnop"`, "bearer_token", true},
		{"pem_unterminated", "-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC\nmore", "pem_private_key", true},
		{"ec_key", "-----BEGIN EC PRIVATE KEY-----\nMHcCAQEEIBk\n-----END EC PRIVATE KEY-----", "pem_private_key", true},
		{"url_pw_https", "clone https://bob:hunter2hunter2@git.example.com/repo.git", "url_password", true},
		// negatives
		{"sk_learn", "we use sk-learn-compatible-estimators-everywhere in the pipeline", "", false},
		{"bearer_word", "use a bearer token for auth", "", false},
		{"bearer_var", `curl -H "Authorization: Bearer $TOKEN" https://api.example.com`, "", false},
		{"basic_auth_word", "Basic authentication is disabled in prod", "", false},
		{"public_key", "-----BEGIN PUBLIC KEY-----\nMIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEA\n-----END PUBLIC KEY-----", "", false},
		{"url_placeholder", "DATABASE_URL=postgres://user:password@localhost/db", "", false},
		{"url_var", "postgres://app:${DB_PASSWORD}@db:5432/app", "", false},
		{"url_no_password", "https://user@example.com/path", "", false},
		{"git_sha_secret_word", "the secret fix was in 3f2a9c1e4b7d8a0f6e5c2b1a9d8e7f6a5b4c3d2e", "", false},
		{"aws_doc_example_id_lower", "akiaiosfodnn7example in lowercase is not a key", "", false},
		{"stripe_publishable", "pk_live_" + strings.Repeat("aB3", 8), "", false},
		{"hf_word", "the hf_hub_download helper", "", false},
		{"npm_short", "npm_config_cache is an env var", "", false},
		{"jwt_header_only", "eyJhbGciOiJIUzI1NiJ9 is just a header", "", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := scan.Scan(c.in)
			if r.Blocked() != c.blocked {
				t.Errorf("Scan(%q).Blocked() = %v, want %v: %s", c.in, r.Blocked(), c.blocked, kinds(r))
			}
			if c.kind != "" {
				if _, ok := hasFinding(r, scan.KindCredential, c.kind); !ok {
					t.Errorf("no %s finding: %s", c.kind, kinds(r))
				}
			}
		})
	}
}

func TestRedactKeepsRest(t *testing.T) {
	key := "ghp_" + strings.Repeat("Ab1", 12)
	in := "token " + key + " and user https://alice:pa55w0rdXYZ@host/x"
	out, fs := scan.Redact(in)
	want := "token [REDACTED:github_token] and user https://alice:[REDACTED:url_password]@host/x"
	if out != want {
		t.Errorf("Redact = %q, want %q", out, want)
	}
	if len(fs) != 2 {
		t.Errorf("findings = %d", len(fs))
	}
	if out, fs := scan.Redact("nothing here"); out != "nothing here" || len(fs) != 0 {
		t.Errorf("Redact clean = %q %v", out, fs)
	}
}
