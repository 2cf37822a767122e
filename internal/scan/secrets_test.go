package scan_test

import (
	"strings"
	"testing"

	"github.com/odekmem/odekmem/internal/scan"
	"github.com/odekmem/odekmem/internal/testcreds"
)

type cred = testcreds.Cred

var (
	leaks     = testcreds.Leaks
	fullwidth = testcreds.Fullwidth
)

var contexts = []struct {
	name string
	f    func(c cred) string
}{
	{"prose", func(c cred) string { return "FYI the " + c.Label + " is " + c.Text + " so keep it handy." }},
	{"env", func(c cred) string { return "export " + c.Env + "=" + c.Text }},
	{"dotenv", func(c cred) string { return "# config\n" + c.Env + "=" + c.Text + "\nDEBUG=1" }},
	{"json", func(c cred) string {
		return `{"name": "svc", "` + strings.ToLower(c.Env) + `": "` + strings.ReplaceAll(c.Text, "\n", `\n`) + `"}`
	}},
	{"yaml", func(c cred) string {
		if strings.Contains(c.Text, "\n") {
			return "service:\n  " + strings.ToLower(c.Env) + ": |\n    " + strings.ReplaceAll(c.Text, "\n", "\n    ") + "\n"
		}
		return "service:\n  " + strings.ToLower(c.Env) + ": " + c.Text + "\n  port: 8080\n"
	}},
}

func TestCredentialsSynthetic(t *testing.T) {
	creds := testcreds.Creds(1)
	total, blocked, redacted := 0, 0, 0
	for _, c := range creds {
		for _, ctx := range contexts {
			for _, variant := range []string{"plain", "zero_width_split", "fullwidth"} {
				zw := variant == "zero_width_split"
				text := c.Text
				secret := c.Secret
				name := c.Kind + "/" + ctx.name
				if variant == "fullwidth" {
					text = fullwidth(text)
					name += "/fullwidth"
				}
				if zw {
					// split the secret with zero-width characters
					mid := len(text) / 2
					if i := strings.Index(text, secret); i >= 0 {
						mid = i + len(secret)/2
					}
					text = text[:mid] + "\u200b\u2060" + text[mid:]
					name += "/zero_width_split"
				}
				in := ctx.f(cred{Kind: c.Kind, Env: c.Env, Label: c.Label, Text: text, Secret: secret})
				total++
				t.Run(name, func(t *testing.T) {
					r := scan.Scan(in)
					if !r.Blocked() {
						t.Errorf("not blocked: %q", in)
					} else {
						blocked++
					}
					var f scan.Finding
					ok := false
					for _, k := range strings.Split(c.Kind, "|") {
						if f, ok = hasFinding(r, scan.KindCredential, k); ok {
							break
						}
					}
					if !ok {
						t.Errorf("no credential/%s finding in %q; findings: %s", c.Kind, in, kinds(r))
					} else if leaks(f.Match, secret) != "" {
						t.Errorf("Match leaks the secret: %q", f.Match)
					}
					if !strings.Contains(r.Redacted, "[REDACTED:"+f.Rule+"]") {
						t.Errorf("Redacted lacks [REDACTED:%s]: %q", f.Rule, r.Redacted)
					}
					if l := leaks(r.Redacted, secret) + leaks(r.Redacted, fullwidth(secret)); l != "" {
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
	t.Logf("synthetic credentials: %d inputs (%d credentials × %d contexts × plain/zero-width split/fullwidth): %d blocked, %d fully redacted",
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
		{"password_stored_in", "The password is stored in Vault", "", false},
		{"password_placeholder_env", "DB_PASSWORD=${DB_PASSWORD}", "", false},
		{"secret_key_from_env", "SECRET_KEY=os.environ['SECRET_KEY']", "", false},
		{"token_required", "API_TOKEN: required", "", false},
		{"key_path", "PRIVATE_KEY_FILE=/etc/ssl/private/app.pem", "", false},
		{"key_bool", "USE_API_KEY=true", "", false},
		{"token_number", "MAX_TOKENS=4096", "", false},
		{"sas_short", "the query has ?sig=abc for testing", "", false},
		// positives of the kinds issue 11 listed
		{"dotenv_db_password", "DB_PASSWORD=hunter2", "secret_assignment", true},
		{"yaml_password", "password: Sup3rS3cret", "secret_assignment", true},
		{"json_api_token", `{"api_token": "f9a8b7c6d5e4f3a2b1c0"}`, "secret_assignment", true},
		{"password_is_colon", "the staging password is: correct horse", "password_statement", true},
		{"password_was", "password was hunter2!", "password_statement", true},
		{"pem_no_dashes", "BEGIN RSA PRIVATE KEY\nMIIEowIBAAKCAQEA\nEND RSA PRIVATE KEY", "pem_private_key", true},
		{"pem_two_dashes", "--BEGIN PRIVATE KEY--\nMIIEowIBAAKCAQEA\n--END PRIVATE KEY--", "pem_private_key", true},
		{"fullwidth_akia", "key ＡＫＩＡ" + strings.Repeat("Ｑ", 16), "aws_access_key", true},
		{"cyrillic_in_key", "ghp_" + strings.Repeat("Аb1", 12), "github_token", true},
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

// TestRedactWholePassword: a URL password holding '@' or '/' is redacted
// whole, and so is a password with no user name.
func TestRedactWholePassword(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"amqp://guest:Pa@ss@rabbit:5672/", "amqp://guest:[REDACTED:url_password]@rabbit:5672/"},
		{"mysql://root:a/b@db:3306/app", "mysql://root:[REDACTED:url_password]@db:3306/app"},
		{"redis://:s3cretpw@cache:6379", "redis://:[REDACTED:url_password]@cache:6379"},
		{"postgres://u:p4ss@h/db and mail bob@example.com", "postgres://u:[REDACTED:url_password]@h/db and mail bob@example.com"},
	} {
		if got, _ := scan.Redact(c.in); got != c.want {
			t.Errorf("Redact(%q) = %q, want %q", c.in, got, c.want)
		}
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

// TestUntrustedWrapperTagIsNotASecret: the wrapper's random hex nonce,
// joined to its tag name, read as a high-entropy token about one time in
// twelve, so the CLI's output redaction mangled recall blocks.
func TestUntrustedWrapperTagIsNotASecret(t *testing.T) {
	for i := 0; i < 2000; i++ {
		w := scan.Wrap("memory", "we deploy on tuesdays")
		if r, _ := scan.Redact(w); r != w {
			t.Fatalf("wrapper redacted:\n%s\n->\n%s", w, r)
		}
	}
}

// TestStorePathsAreNotSecrets: a chunk path (a directory name joined to
// an atom id) in a problem line is a name, not a credential.
func TestStorePathsAreNotSecrets(t *testing.T) {
	for _, s := range []string{"chunks/05fff085af3c6cd933ff6a067692fdf2.md: mode 0644 (tightened to 0600)", "moved chunks/13d9840997b11fb6a91a2cdb407139ee.md aside"} {
		if out, f := scan.Redact(s); len(f) != 0 {
			t.Errorf("Redact(%q) = %q", s, out)
		}
	}
}
