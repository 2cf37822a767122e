package testcreds

import (
	"encoding/base64"
	"fmt"
	"math/rand/v2"
	"strings"
)

// Shapes returns one synthetic credential for every rule of gitleaks'
// default configuration (github.com/gitleaks/gitleaks config/gitleaks.toml,
// MIT licence; the values are generated here from the shapes its rules
// describe, nothing is copied) and for the generic and structured shapes
// issue 22 lists: secret-looking values next to key-like names, command
// lines, connection strings, .netrc and docker entries, private keys in
// PEM, base64, hex and mnemonic form, cloud provider files. Kind is the
// source id ("gitleaks:<rule id>" or "shape:<name>"), not a finding rule:
// the tests ask only that no 8-character piece of Secret survives.
//
// The values are random with a fixed seed; none is a real credential.
func Shapes(seed uint64) []Cred {
	g := &gen{rng: rand.New(rand.NewPCG(seed, 22))}
	g.gitleaks()
	g.generic()
	g.structured()
	return g.cs
}

// GitleaksNotApplicable are gitleaks rule ids with no text form to test:
// pkcs12-file matches a file path (a binary .p12), not text; and
// generic-api-key is tested by the generic shapes.
var GitleaksNotApplicable = []string{"pkcs12-file", "generic-api-key"}

type gen struct {
	rng *rand.Rand
	cs  []Cred
}

const (
	lowerAlnum = "abcdefghijklmnopqrstuvwxyz0123456789"
	letters    = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
	base58     = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"
	digits     = "0123456789"
)

func (g *gen) s(set string, n int) string {
	if strings.ContainsAny(set, digits) {
		return randStr(g.rng, set, n)
	}
	b := make([]byte, n) // randStr wants digits in a long mixed-case value
	for i := range b {
		b[i] = set[g.rng.IntN(len(set))]
	}
	return string(b)
}
func (g *gen) hex(n int) string { return g.s(hexset, n) }
func (g *gen) an(n int) string  { return g.s(alnum, n) }
func (g *gen) la(n int) string {
	// lowercase and digits, with digits spread through it
	for {
		v := g.s(lowerAlnum, n)
		if countDigits(v) >= n/6 && countDigits(v) < n-n/6 {
			return v
		}
	}
}
func (g *gen) uuid() string {
	return g.hex(8) + "-" + g.hex(4) + "-4" + g.hex(3) + "-a" + g.hex(3) + "-" + g.hex(12)
}
func (g *gen) num(n int) string { return fmt.Sprint(g.rng.IntN(9)+1) + g.s(digits, n-1) }

func countDigits(s string) int {
	n := 0
	for i := 0; i < len(s); i++ {
		if s[i] >= '0' && s[i] <= '9' {
			n++
		}
	}
	return n
}

// tok adds a token that appears as itself. A "|" in tok ends its public
// prefix ("ghp_|…"): the text has no "|", the secret is what follows it
// (a prefix is no secret, and the same prefix stands in other texts).
func (g *gen) tok(id, env, tok string) {
	secret := tok
	if i := strings.Index(tok, "|"); i >= 0 {
		tok = tok[:i] + tok[i+1:]
		secret = tok[i:]
	}
	g.cs = append(g.cs, Cred{Kind: "gitleaks:" + id, Env: env, Label: id, Text: tok, Secret: secret})
}

// kw adds a value assigned after a vendor name, the forms gitleaks'
// keyword rules look for; the form varies with the count so that every
// assignment style is exercised.
func (g *gen) kw(id, vendor, v string) {
	var text string
	switch len(g.cs) % 5 {
	case 0:
		text = strings.ToUpper(vendor) + "_CONFIG=" + v
	case 1:
		text = `"` + vendor + `": "` + v + `"`
	case 2:
		text = vendor + " = '" + v + "'"
	case 3:
		text = vendor + "_client: " + v
	default:
		text = "export " + strings.ToUpper(vendor) + "_SECRET=\"" + v + "\""
	}
	g.cs = append(g.cs, Cred{Kind: "gitleaks:" + id, Env: strings.ToUpper(vendor) + "_CONFIG", Label: vendor + " setting", Text: text, Secret: v})
}

func (g *gen) shape(name, text, secret string) {
	g.cs = append(g.cs, Cred{Kind: "shape:" + name, Env: "CONFIG", Label: name, Text: text, Secret: secret})
}

func (g *gen) gitleaks() {
	g.tok("1password-secret-key", "OP_SECRET_KEY", "A3-|"+g.s(upnum, 6)+"-"+g.s(upnum, 11)+"-"+g.s(upnum, 5)+"-"+g.s(upnum, 5)+"-"+g.s(upnum, 5))
	g.tok("1password-service-account-token", "OP_SERVICE_ACCOUNT_TOKEN", "ops_eyJ|"+g.s(b64set, 260))
	g.kw("adafruit-api-key", "adafruit", g.s(lowerAlnum+"_-", 32))
	g.kw("adobe-client-id", "adobe", g.hex(32))
	g.tok("adobe-client-secret", "ADOBE_CLIENT_SECRET", "p8e-|"+g.an(32))
	g.tok("age-secret-key", "AGE_KEY", "AGE-SECRET-KEY-1|"+g.s("QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L", 58))
	g.kw("airtable-api-key", "airtable", g.la(17))
	g.tok("airtable-personnal-access-token", "AIRTABLE_PAT", "pat|"+g.an(14)+"."+g.hex(64))
	g.kw("algolia-api-key", "algolia", g.la(32))
	g.tok("alibaba-access-key-id", "ALIBABA_ACCESS_KEY_ID", "LTAI|"+g.an(20))
	g.kw("alibaba-secret-key", "alibaba", g.la(30))
	g.tok("anthropic-admin-api-key", "ANTHROPIC_ADMIN_KEY", "sk-ant-admin01-|"+g.s(urlset, 93)+"AA")
	g.tok("anthropic-api-key", "ANTHROPIC_API_KEY", "sk-ant-api03-|"+g.s(urlset, 93)+"AA")
	g.tok("artifactory-api-key", "ARTIFACTORY_API_KEY", "AKCp|"+g.an(69))
	g.tok("artifactory-reference-token", "ARTIFACTORY_TOKEN", "cmVmd|"+g.an(59))
	g.kw("asana-client-id", "asana", g.num(16))
	g.kw("asana-client-secret", "asana", g.la(32))
	g.kw("atlassian-api-token", "atlassian", g.la(20)+g.hex(4))
	g.tok("authress-service-client-access-key", "AUTHRESS_KEY", "sc_|"+g.an(12)+"."+g.an(5)+".acc_"+g.la(20)+"."+g.s(b64set, 60))
	g.tok("aws-access-token", "AWS_ACCESS_KEY_ID", "A3TX|"+g.s("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567", 16))
	g.tok("aws-amazon-bedrock-api-key-long-lived", "AWS_BEARER_TOKEN_BEDROCK", "ABSK|"+g.s(b64set, 132))
	g.tok("aws-amazon-bedrock-api-key-short-lived", "AWS_BEARER_TOKEN_BEDROCK", "bedrock-api-key-YmVkcm9jay5hbWF6b25hd3MuY29t|"+g.s(b64set, 80))
	g.tok("azure-ad-client-secret", "AZURE_CLIENT_SECRET", g.an(3)+"7Q~"+g.s(urlset+"~.", 34))
	g.kw("beamer-api-token", "beamer", "b_"+g.s(lowerAlnum+"_-", 44))
	g.kw("bitbucket-client-id", "bitbucket", g.la(32))
	g.kw("bitbucket-client-secret", "bitbucket", g.la(64))
	g.kw("bittrex-access-key", "bittrex", g.la(32))
	g.kw("bittrex-secret-key", "bittrex", g.la(32))
	g.kw("cisco-meraki-api-key", "meraki", g.hex(40))
	g.tok("clickhouse-cloud-api-secret-key", "CLICKHOUSE_SECRET", "4b1d|"+g.an(38))
	g.tok("clojars-api-token", "CLOJARS_TOKEN", "CLOJARS_|"+g.la(60))
	g.kw("cloudflare-api-key", "cloudflare", g.s(lowerAlnum+"_-", 40))
	g.kw("cloudflare-global-api-key", "cloudflare", g.hex(37))
	g.tok("cloudflare-origin-ca-key", "CF_ORIGIN_CA_KEY", "v1.0-|"+g.hex(24)+"-"+g.hex(146))
	g.kw("codecov-access-token", "codecov", g.la(32))
	g.kw("cohere-api-token", "cohere", g.an(40))
	g.kw("coinbase-access-token", "coinbase", g.s(lowerAlnum+"_-", 64))
	g.kw("confluent-access-token", "confluent", g.la(16))
	g.kw("confluent-secret-key", "confluent", g.la(64))
	g.kw("contentful-delivery-api-token", "contentful", g.s(lowerAlnum+"=_-", 43))
	cu := g.an(10) + ":" + g.an(14)
	g.shape("gitleaks:curl-auth-user", "curl --user "+cu+" https://api.example.com/v2/items", cu[11:])
	ch := g.an(40)
	g.shape("gitleaks:curl-auth-header", `curl -sS -H "Authorization: Bearer `+ch+`" https://api.example.com/me`, ch)
	ch2 := g.an(32)
	g.shape("gitleaks:curl-auth-header", `curl https://api.example.com -H 'X-Api-Key: `+ch2+`'`, ch2)
	g.tok("databricks-api-token", "DATABRICKS_TOKEN", "dapi|"+g.hex(32)+"-2")
	g.kw("datadog-access-token", "datadog", g.la(40))
	g.kw("defined-networking-api-token", "dnkey", "dnkey-"+g.la(26)+"-"+g.la(52))
	g.tok("digitalocean-access-token", "DIGITALOCEAN_TOKEN", "doo_v1_|"+g.hex(64))
	g.tok("digitalocean-pat", "DIGITALOCEAN_TOKEN", "dop_v1_|"+g.hex(64))
	g.tok("digitalocean-refresh-token", "DIGITALOCEAN_REFRESH", "dor_v1_|"+g.hex(64))
	g.kw("discord-api-token", "discord", g.hex(64))
	g.kw("discord-client-id", "discord", g.num(18))
	g.kw("discord-client-secret", "discord", g.s(lowerAlnum+"_-", 32))
	g.tok("doppler-api-token", "DOPPLER_TOKEN", "dp.pt.|"+g.an(43))
	g.kw("droneci-access-token", "droneci", g.la(32))
	g.kw("dropbox-api-token", "dropbox", g.la(15))
	g.kw("dropbox-long-lived-api-token", "dropbox", g.la(11)+"AAAAAAAAAA"+g.s(lowerAlnum+"-_=", 43))
	g.kw("dropbox-short-lived-api-token", "dropbox", "sl."+g.s(alnum+"-_", 135))
	g.tok("duffel-api-token", "DUFFEL_TOKEN", "duffel_live_|"+g.s(urlset, 43))
	g.tok("dynatrace-api-token", "DT_API_TOKEN", "dt0c01.|"+g.s(upnum, 24)+"."+g.an(64))
	g.tok("easypost-api-token", "EASYPOST_API_KEY", "EZAK|"+g.an(54))
	g.tok("easypost-test-api-token", "EASYPOST_TEST_KEY", "EZTK|"+g.an(54))
	g.kw("etsy-access-token", "etsy", g.la(24))
	fb := g.num(15) + "|" + g.s(urlset, 30)
	g.shape("gitleaks:facebook-access-token", "facebook app token "+fb, fb)
	g.tok("facebook-page-access-token", "FB_PAGE_TOKEN", "EAAC|"+g.an(140))
	g.kw("facebook-secret", "facebook", g.hex(32))
	g.kw("fastly-api-token", "fastly", g.s(lowerAlnum+"=_-", 32))
	g.kw("finicity-api-token", "finicity", g.hex(32))
	g.kw("finicity-client-secret", "finicity", g.la(20))
	g.kw("finnhub-access-token", "finnhub", g.la(20))
	g.kw("flickr-access-token", "flickr", g.la(32))
	g.tok("flutterwave-encryption-key", "FLW_ENCRYPTION_KEY", "FLWSECK_TEST-|"+g.s("abcdefgh0123456789", 12))
	g.tok("flutterwave-public-key", "FLW_PUBLIC_KEY", "FLWPUBK_TEST-|"+g.s("abcdefgh0123456789", 32)+"-X")
	g.tok("flutterwave-secret-key", "FLW_SECRET_KEY", "FLWSECK_TEST-|"+g.s("abcdefgh0123456789", 32)+"-X")
	g.tok("flyio-access-token", "FLY_API_TOKEN", "fo1_|"+g.s(urlset, 43))
	g.tok("flyio-access-token", "FLY_API_TOKEN", "fm2_|"+g.s(b64set, 180))
	g.tok("frameio-api-token", "FRAMEIO_TOKEN", "fio-u-|"+g.s(urlset+"=", 64))
	fk := g.s(alnum, 29)
	g.shape("gitleaks:freemius-secret-key", `'secret_key' => 'sk_`+fk+`'`, fk)
	g.kw("freshbooks-access-token", "freshbooks", g.la(64))
	g.tok("gcp-api-key", "GOOGLE_API_KEY", "AIza|"+g.s(urlset, 35))
	g.tok("github-app-token", "GITHUB_TOKEN", "ghs_|"+g.an(36))
	g.tok("github-fine-grained-pat", "GITHUB_TOKEN", "github_pat_|"+g.an(22)+"_"+g.an(59))
	g.tok("github-oauth", "GITHUB_TOKEN", "gho_|"+g.an(36))
	g.tok("github-pat", "GITHUB_TOKEN", "ghp_|"+g.an(36))
	g.tok("github-refresh-token", "GITHUB_TOKEN", "ghr_|"+g.an(36))
	g.tok("gitlab-cicd-job-token", "CI_JOB_TOKEN", "glcbt-|"+g.an(2)+"_"+g.s(urlset, 20))
	g.tok("gitlab-deploy-token", "GITLAB_DEPLOY_TOKEN", "gldt-|"+g.s(urlset, 20))
	g.tok("gitlab-feature-flag-client-token", "GITLAB_FF_TOKEN", "glffct-|"+g.s(urlset, 20))
	g.tok("gitlab-feed-token", "GITLAB_FEED_TOKEN", "glft-|"+g.s(urlset, 20))
	g.tok("gitlab-incoming-mail-token", "GITLAB_MAIL_TOKEN", "glimt-|"+g.s(urlset, 25))
	g.tok("gitlab-kubernetes-agent-token", "GITLAB_AGENT_TOKEN", "glagent-|"+g.s(urlset, 50))
	g.tok("gitlab-oauth-app-secret", "GITLAB_OAUTH_SECRET", "gloas-|"+g.s(urlset, 64))
	g.tok("gitlab-pat", "GITLAB_TOKEN", "glpat-|"+g.s(urlset, 20))
	g.tok("gitlab-pat-routable", "GITLAB_TOKEN", "glpat-|"+g.s(urlset, 36)+".01"+g.la(7))
	g.tok("gitlab-ptt", "GITLAB_TRIGGER_TOKEN", "glptt-|"+g.hex(40))
	g.tok("gitlab-rrt", "GITLAB_RUNNER_REG_TOKEN", "GR1348941|"+g.s(urlset, 20))
	g.tok("gitlab-runner-authentication-token", "GITLAB_RUNNER_TOKEN", "glrt-|"+g.s(urlset, 20))
	g.tok("gitlab-runner-authentication-token-routable", "GITLAB_RUNNER_TOKEN", "glrt-t1_|"+g.s(urlset, 30)+".01"+g.la(7))
	g.tok("gitlab-scim-token", "GITLAB_SCIM_TOKEN", "glsoat-|"+g.s(urlset, 20))
	gs := g.la(32)
	g.shape("gitleaks:gitlab-session-cookie", "Cookie: _gitlab_session="+gs, gs)
	g.kw("gitter-access-token", "gitter", g.s(lowerAlnum+"_-", 40))
	g.kw("gocardless-api-token", "gocardless", "live_"+g.s(urlset+"=", 40))
	g.tok("grafana-api-key", "GRAFANA_API_KEY", "eyJrIjoi|"+g.an(90))
	g.tok("grafana-cloud-api-token", "GRAFANA_CLOUD_TOKEN", "glc_|"+g.s(b64set, 60))
	g.tok("grafana-service-account-token", "GRAFANA_TOKEN", "glsa_|"+g.an(32)+"_"+g.hex(8))
	g.tok("harness-api-key", "HARNESS_API_KEY", "pat.|"+g.s(urlset, 22)+"."+g.an(24)+"."+g.an(20))
	g.tok("hashicorp-tf-api-token", "TFE_TOKEN", g.an(14)+".atlasv1."+g.s(urlset, 67))
	tp := g.s(lowerAlnum+"_-", 16)
	g.shape("gitleaks:hashicorp-tf-password", `administrator_login_password = "`+tp+`"`, tp)
	g.kw("heroku-api-key", "heroku", g.uuid())
	g.tok("heroku-api-key-v2", "HEROKU_API_KEY", "HRKU-AA|"+g.s(urlset, 58))
	g.kw("hubspot-api-key", "hubspot", strings.ToUpper(g.uuid()))
	g.tok("huggingface-access-token", "HF_TOKEN", "hf_|"+g.s(letters, 34))
	g.tok("huggingface-organization-api-token", "HF_ORG_TOKEN", "api_org_|"+g.s(letters, 34))
	g.tok("infracost-api-token", "INFRACOST_API_KEY", "ico-|"+g.an(32))
	g.kw("intercom-api-key", "intercom", g.s(lowerAlnum+"=_-", 60))
	g.tok("intra42-client-secret", "FT_SECRET", "s-s4t2ud-|"+g.hex(64))
	g.kw("jfrog-api-key", "jfrog", g.la(73))
	g.kw("jfrog-identity-token", "artifactory", g.la(64))
	g.tok("jwt", "SESSION_JWT", "eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOi|"+g.s(urlset, 40)+"."+g.s(urlset, 86))
	jb := base64.StdEncoding.EncodeToString([]byte("eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOi" + g.s(urlset, 30) + "." + g.s(urlset, 43)))
	g.tok("jwt-base64", "JWT_B64", jb)
	g.kw("kraken-access-token", "kraken", g.s(lowerAlnum+"/=_+-", 86))
	kd := base64.StdEncoding.EncodeToString([]byte(g.an(24)))
	g.shape("gitleaks:kubernetes-secret-yaml", "apiVersion: v1\nkind: Secret\nmetadata:\n  name: db\ntype: Opaque\ndata:\n  password: "+kd+"\n  username: YWRtaW4=\n", kd)
	g.kw("kucoin-access-token", "kucoin", g.hex(24))
	g.kw("kucoin-secret-key", "kucoin", g.uuid())
	g.kw("launchdarkly-access-token", "launchdarkly", g.s(lowerAlnum+"=_-", 40))
	g.tok("linear-api-key", "LINEAR_API_KEY", "lin_api_|"+g.an(40))
	g.kw("linear-client-secret", "linear", g.hex(32))
	g.kw("linkedin-client-id", "linkedin", g.la(14))
	g.kw("linkedin-client-secret", "linkedin", g.la(16))
	g.kw("lob-api-key", "lob", "live_"+g.hex(35))
	g.kw("lob-pub-api-key", "lob", "test_pub_"+g.hex(31))
	g.kw("looker-client-id", "looker", g.la(20))
	g.kw("looker-client-secret", "looker", g.la(24))
	g.kw("mailchimp-api-key", "mailchimp", g.hex(32)+"-us20")
	g.kw("mailgun-private-api-token", "mailgun", "key-"+g.hex(32))
	g.kw("mailgun-pub-key", "mailgun", "pubkey-"+g.hex(32))
	g.kw("mailgun-signing-key", "mailgun", g.hex(32)+"-"+g.hex(8)+"-"+g.hex(8))
	g.kw("mapbox-api-token", "mapbox", "pk."+g.la(60)+"."+g.la(22))
	g.kw("mattermost-access-token", "mattermost", g.la(26))
	g.tok("maxmind-license-key", "MAXMIND_LICENSE_KEY", g.an(6)+"_"+g.an(29)+"_mmk")
	g.kw("messagebird-api-token", "messagebird", g.la(25))
	g.kw("messagebird-client-id", "messagebird", g.uuid())
	tw := "https://contoso.webhook.office.com/webhookb2/" + g.uuid() + "@" + g.uuid() + "/IncomingWebhook/" + g.hex(32) + "/" + g.uuid()
	g.shape("gitleaks:microsoft-teams-webhook", tw, tw[45:])
	g.kw("netlify-access-token", "netlify", g.s(lowerAlnum+"=_-", 43))
	g.kw("new-relic-browser-api-token", "newrelic", "NRJS-"+g.hex(19))
	g.kw("new-relic-insert-key", "newrelic", "NRII-"+g.s(lowerAlnum+"-", 32))
	g.kw("new-relic-user-api-id", "new_relic", g.la(64))
	g.kw("new-relic-user-api-key", "newrelic", "NRAK-"+g.s(upnum, 27))
	g.tok("notion-api-token", "NOTION_TOKEN", "ntn_|"+g.s(digits, 11)+g.an(35))
	g.tok("npm-access-token", "NPM_TOKEN", "npm_|"+g.an(36))
	np := g.an(16)
	g.shape("gitleaks:nuget-config-password", `<add key="ClearTextPassword" value="`+np+`" />`, np)
	g.kw("nytimes-access-token", "nytimes", g.s(lowerAlnum+"=_-", 32))
	g.tok("octopus-deploy-api-key", "OCTOPUS_API_KEY", "API-|"+g.s("ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789", 26))
	g.kw("okta-access-token", "okta", "00"+g.s(urlset, 40))
	g.tok("openai-api-key", "OPENAI_API_KEY", "sk-proj-|"+g.s(urlset, 74)+"T3BlbkFJ"+g.s(urlset, 74))
	g.tok("openshift-user-token", "OPENSHIFT_TOKEN", "sha256~|"+g.s(urlset, 43))
	g.tok("perplexity-api-key", "PPLX_API_KEY", "pplx-|"+g.an(48))
	g.kw("plaid-api-token", "plaid", "access-production-"+g.uuid())
	g.kw("plaid-client-id", "plaid", g.la(24))
	g.kw("plaid-secret-key", "plaid", g.la(30))
	g.tok("planetscale-api-token", "PLANETSCALE_TOKEN", "pscale_tkn_|"+g.s(urlset, 43))
	g.tok("planetscale-oauth-token", "PLANETSCALE_OAUTH", "pscale_oauth_|"+g.s(urlset, 43))
	g.tok("planetscale-password", "PLANETSCALE_PASSWORD", "pscale_pw_|"+g.s(urlset, 43))
	g.tok("postman-api-token", "POSTMAN_API_KEY", "PMAK-|"+g.hex(24)+"-"+g.hex(34))
	g.tok("prefect-api-token", "PREFECT_API_KEY", "pnu_|"+g.an(36))
	var pk strings.Builder
	pk.WriteString("-----BEGIN DSA PRIVATE KEY-----\n")
	pkBody := ""
	for range 4 {
		l := g.s(b64set, 64)
		pk.WriteString(l + "\n")
		pkBody += l
	}
	pk.WriteString("-----END DSA PRIVATE KEY-----")
	g.shape("gitleaks:private-key", pk.String(), pkBody)
	g.kw("privateai-api-token", "private_ai", g.la(32))
	g.tok("pulumi-api-token", "PULUMI_ACCESS_TOKEN", "pul-|"+g.hex(40))
	g.tok("pypi-upload-token", "PYPI_TOKEN", "pypi-AgEIcHlwaS5vcmc|"+g.s(urlset, 70))
	g.kw("rapidapi-access-token", "rapidapi", g.s(lowerAlnum+"_-", 50))
	g.tok("readme-api-token", "README_API_KEY", "rdme_|"+g.la(70))
	g.tok("rubygems-api-token", "GEM_HOST_API_KEY", "rubygems_|"+g.hex(48))
	g.tok("scalingo-api-token", "SCALINGO_TOKEN", "tk-us-|"+g.s(urlset, 48))
	g.kw("sendbird-access-id", "sendbird", g.uuid())
	g.kw("sendbird-access-token", "sendbird", g.hex(40))
	g.tok("sendgrid-api-token", "SENDGRID_API_KEY", "SG.|"+g.s(urlset, 22)+"."+g.s(urlset, 43))
	g.tok("sendinblue-api-token", "BREVO_API_KEY", "xkeysib-|"+g.hex(64)+"-"+g.an(16))
	g.kw("sentry-access-token", "sentry", g.hex(64))
	g.tok("sentry-org-token", "SENTRY_AUTH_TOKEN", "sntrys_eyJpYXQiO|"+g.an(40)+"LCJyZWdpb25fdXJs"+g.an(40)+"_"+g.s(b64set, 43))
	g.tok("sentry-user-token", "SENTRY_AUTH_TOKEN", "sntryu_|"+g.hex(64))
	g.tok("settlemint-application-access-token", "SETTLEMINT_TOKEN", "sm_aat_|"+g.an(16))
	g.tok("settlemint-personal-access-token", "SETTLEMINT_TOKEN", "sm_pat_|"+g.an(16))
	g.tok("settlemint-service-access-token", "SETTLEMINT_TOKEN", "sm_sat_|"+g.an(16))
	g.tok("shippo-api-token", "SHIPPO_API_KEY", "shippo_live_|"+g.hex(40))
	g.tok("shopify-access-token", "SHOPIFY_TOKEN", "shpat_|"+g.hex(32))
	g.tok("shopify-custom-access-token", "SHOPIFY_TOKEN", "shpca_|"+g.hex(32))
	g.tok("shopify-private-app-access-token", "SHOPIFY_TOKEN", "shppa_|"+g.hex(32))
	g.tok("shopify-shared-secret", "SHOPIFY_SECRET", "shpss_|"+g.hex(32))
	sk := g.hex(8) + ":" + g.hex(8)
	g.shape("gitleaks:sidekiq-secret", "BUNDLE_ENTERPRISE__CONTRIBSYS__COM="+sk, sk)
	su := g.hex(8) + ":" + g.hex(8)
	g.shape("gitleaks:sidekiq-sensitive-url", "source \"https://"+su+"@enterprise.contribsys.com/\"", su)
	g.tok("slack-app-token", "SLACK_APP_TOKEN", "xapp-1-A|"+g.s(upnum, 10)+"-"+g.num(13)+"-"+g.hex(64))
	g.tok("slack-bot-token", "SLACK_BOT_TOKEN", "xoxb-|"+g.num(12)+"-"+g.num(13)+"-"+g.an(24))
	g.tok("slack-config-access-token", "SLACK_CONFIG_TOKEN", "xoxe.xoxp-1-|"+g.s(upnum, 164))
	g.tok("slack-config-refresh-token", "SLACK_REFRESH_TOKEN", "xoxe-1-|"+g.s(upnum, 146))
	g.tok("slack-legacy-bot-token", "SLACK_BOT_TOKEN", "xoxb-|"+g.num(10)+"-"+g.an(24))
	g.tok("slack-legacy-token", "SLACK_TOKEN", "xoxs-|"+g.num(10)+"-"+g.num(10)+"-"+g.num(10)+"-"+g.hex(64))
	g.tok("slack-legacy-workspace-token", "SLACK_TOKEN", "xoxa-2-|"+g.an(40))
	g.tok("slack-user-token", "SLACK_USER_TOKEN", "xoxp-|"+g.num(12)+"-"+g.num(12)+"-"+g.num(13)+"-"+g.hex(32))
	wh := "T" + g.s(upnum, 8) + "/B" + g.s(upnum, 8) + "/" + g.an(24)
	g.shape("gitleaks:slack-webhook-url", "https://hooks.slack.com/services/"+wh, wh)
	g.kw("snyk-api-token", "snyk_token", g.uuid())
	g.kw("sonar-api-token", "sonar_token", "squ_"+g.la(40))
	g.tok("sourcegraph-access-token", "SRC_ACCESS_TOKEN", "sgp_|"+g.hex(16)+"_"+g.hex(40))
	g.tok("square-access-token", "SQUARE_ACCESS_TOKEN", "EAAA|"+g.s(urlset, 60))
	g.kw("squarespace-access-token", "squarespace", g.uuid())
	g.tok("stripe-access-token", "STRIPE_SECRET_KEY", "sk_prod_|"+g.an(40))
	g.kw("sumologic-access-id", "sumo", "su"+g.an(12))
	g.kw("sumologic-access-token", "sumo", g.la(64))
	g.kw("telegram-bot-api-token", "telegram", g.num(10)+":AA"+g.s(urlset, 33))
	g.kw("travisci-access-token", "travis", g.la(22))
	g.tok("twilio-api-key", "TWILIO_API_KEY", "SK|"+g.hex(32))
	g.kw("twitch-api-token", "twitch", g.la(30))
	g.kw("twitter-access-secret", "twitter", g.la(45))
	g.kw("twitter-access-token", "twitter", g.num(19)+"-"+g.an(40))
	g.kw("twitter-api-key", "twitter", g.la(25))
	g.kw("twitter-api-secret", "twitter", g.la(50))
	g.kw("twitter-bearer-token", "twitter", strings.Repeat("A", 22)+g.an(90))
	g.kw("typeform-api-token", "typeform", "tfp_"+g.s(urlset+"=.", 59))
	g.tok("vault-batch-token", "VAULT_TOKEN", "hvb.|"+g.s(urlset, 150))
	g.tok("vault-service-token", "VAULT_TOKEN", "hvs.|"+g.s(urlset, 95))
	g.tok("vault-service-token", "VAULT_TOKEN", "s.|"+g.an(24))
	g.kw("yandex-access-token", "yandex", "t1."+g.s(urlset, 30)+"."+g.s(urlset, 86))
	g.kw("yandex-api-key", "yandex", "AQVN"+g.s(urlset, 36))
	g.kw("yandex-aws-access-token", "yandex", "YC"+g.s(urlset, 38))
	g.kw("zendesk-secret-key", "zendesk", g.la(40))
}

// generic: secret-looking values next to key-like names, in the
// assignment forms of many languages, command lines and prose
func (g *gen) generic() {
	pw := func() string { return g.an(10) + "!" + g.an(5) }
	names := []string{"password", "passwd", "pwd", "pw", "token", "secret", "api_key", "apikey", "auth", "access_key",
		"client_secret", "private_key", "DB_PASS", "SMTP_PASSWORD", "appSecret", "authToken", "X_API_KEY", "credentials"}
	forms := []func(n, v string) string{
		func(n, v string) string { return n + "=" + v },
		func(n, v string) string { return n + ": " + v },
		func(n, v string) string { return `"` + n + `": "` + v + `"` },
		func(n, v string) string { return "'" + n + "' => '" + v + "'" },
		func(n, v string) string { return n + " := \"" + v + "\"" },
		func(n, v string) string { return "<" + n + ">" + v + "</" + n + ">" },
		func(n, v string) string { return "set " + n + " = '" + v + "';" },
		func(n, v string) string { return n + " ?= " + v },
		func(n, v string) string { return "export " + strings.ToUpper(n) + "=\"" + v + "\"" },
	}
	for i, n := range names {
		for j, f := range forms {
			if (i+j)%3 != 0 { // a third of the pairs keeps the set small
				continue
			}
			v := g.an(14 + g.rng.IntN(20))
			if i%4 == 0 {
				v = pw()
			}
			g.shape("generic:"+n, f(n, v), v)
		}
	}
	for _, flag := range []string{"--password", "--token", "--api-key", "--client-secret", "--secret", "--access-key", "--auth-token"} {
		v := g.an(24)
		g.shape("generic:flag"+flag, "deploy-tool push "+flag+" "+v+" --region eu-west-1", v)
		v = g.an(24)
		g.shape("generic:flag"+flag+"=", "deploy-tool push "+flag+"="+v, v)
	}
	p := pw()
	g.shape("cli:mysql -p", "mysql -h db.internal -u root -p"+p+" shop", p)
	p = pw()
	g.shape("cli:mysql --password", "mysql --user=app --password="+p+" -e 'select 1'", p)
	p = pw()
	g.shape("cli:mysqldump -p", "mysqldump -uroot -p'"+p+"' app > app.sql", p)
	p = pw()
	g.shape("cli:curl -u", "curl -fsS -u admin:"+p+" https://ci.example.com/api/json", p)
	p = pw()
	g.shape("cli:curl --user", "curl --user 'deploy:"+p+"' https://nexus.example.com/repository/", p)
	p = pw()
	g.shape("cli:docker login -p", "docker login -u ci -p "+p+" registry.example.com", p)
	p = pw()
	g.shape("cli:sshpass", "sshpass -p "+p+" ssh root@10.0.0.5", p)
	p = pw()
	g.shape("cli:redis-cli -a", "redis-cli -h cache -a "+p+" ping", p)
	p = pw()
	g.shape("cli:PowerShell -Password", "New-LocalUser -Name svc -Password "+p, p)
	p = pw()
	g.shape("cli:wget --http-password", "wget --http-user=ci --http-password="+p+" https://files.example.com/a.tgz", p)
	p = g.an(20)
	g.shape("prose:my pw is", "fyi my pw is "+p+" for the vpn", p)
	p = g.an(32)
	g.shape("prose:api key is", "the api key is "+p+" until Friday", p)
	p = pw()
	g.shape("prose:password was", "the root password was "+p+" before the rotation", p)
	p = g.an(28)
	g.shape("prose:token colon", "New token: "+p, p)
}

// structured: connection strings, config files, private keys, cloud
// provider files
func (g *gen) structured() {
	pw := func() string { return g.an(12) + "%" + g.an(4) }
	for _, scheme := range []string{"postgres", "postgresql", "mysql", "mongodb", "mongodb+srv", "redis", "rediss", "amqp", "amqps", "https", "http", "ftp", "sftp", "smtp", "ldap", "mssql", "jdbc:postgresql"} {
		p := pw()
		host := "db.internal:5432/app"
		g.shape("url:"+scheme, scheme+"://svc_user:"+p+"@"+host, p)
	}
	p := pw()
	g.shape("url:user-less", "redis://:"+p+"@cache.internal:6379/0", p)
	p = pw()
	g.shape("url:jdbc query", "jdbc:mysql://db.internal:3306/app?user=app&password="+p+"&useSSL=true", p)
	p = pw()
	g.shape("ado.net", "Server=tcp:sql.example.net,1433;Database=app;User ID=app;Password="+p+";Encrypt=True;", p)
	ak := g.s(b64set, 86) + "=="
	g.shape("azure:storage", "DefaultEndpointsProtocol=https;AccountName=acct1;AccountKey="+ak+";EndpointSuffix=core.windows.net", ak)
	sak := g.s(b64set, 43) + "="
	g.shape("azure:service bus", "Endpoint=sb://ns1.servicebus.windows.net/;SharedAccessKeyName=RootManageSharedAccessKey;SharedAccessKey="+sak, sak)
	sak = g.s(b64set, 43) + "="
	g.shape("azure:iot hub", "HostName=hub1.azure-devices.net;DeviceId=dev1;SharedAccessKey="+sak, sak)
	var gcpKey strings.Builder
	gcpBody := ""
	gcpKey.WriteString(`-----BEGIN PRIVATE KEY-----\n`)
	for range 5 {
		l := g.s(b64set, 64)
		gcpKey.WriteString(l + `\n`)
		gcpBody += l
	}
	gcpKey.WriteString(`-----END PRIVATE KEY-----\n`)
	kid := g.hex(40)
	g.shape("gcp:service account json", `{"type": "service_account", "project_id": "proj-1", "private_key_id": "`+kid+`", "private_key": "`+gcpKey.String()+`", "client_email": "svc@proj-1.iam.gserviceaccount.com"}`, gcpBody+kid)
	ak2 := "AKIA" + g.s(upnum, 16)
	sk2 := g.s(b64set, 40)
	g.shape("aws:credentials file", "[default]\naws_access_key_id = "+ak2+"\naws_secret_access_key = "+sk2+"\n", ak2+sk2)
	st := g.s(b64set, 300)
	g.shape("aws:session token", "aws_session_token = "+st, st)
	p = pw()
	g.shape("netrc:one line", "machine api.heroku.com login me@example.com password "+p, p)
	p = pw()
	g.shape("netrc:lines", "machine github.com\nlogin octocat\npassword "+p+"\n", p)
	p = pw()
	g.shape("netrc:default", "default login anonymous password "+p, p)
	auth := base64.StdEncoding.EncodeToString([]byte("robot$ci:" + g.an(32)))
	g.shape("docker:auth", `{"auths":{"https://index.docker.io/v1/":{"auth":"`+auth+`"}}}`, auth)
	it := g.an(40)
	g.shape("docker:identitytoken", `{"auths":{"acr.io":{"identitytoken":"`+it+`"}}}`, it)
	np := g.an(20)
	g.shape("npmrc:_authToken", "//registry.npmjs.org/:_authToken="+np, np)
	np = base64.StdEncoding.EncodeToString([]byte(g.an(18)))
	g.shape("npmrc:_password", "//npm.example.com/:_password="+np, np)
	pp := g.an(20)
	g.shape("pypirc:password", "[pypi]\nusername = __token__\npassword = "+pp+"\n", pp)
	gp := g.an(24)
	g.shape("git-credentials", "https://ci-bot:"+gp+"@github.com", gp)
	for _, typ := range []string{"RSA ", "EC ", "OPENSSH ", "ENCRYPTED ", "DSA ", ""} {
		body := g.s(b64set, 64) + "\n" + g.s(b64set, 64)
		g.shape("pem:"+typ, "-----BEGIN "+typ+"PRIVATE KEY-----\n"+body+"\n-----END "+typ+"PRIVATE KEY-----", body)
	}
	pemText := "-----BEGIN RSA PRIVATE KEY-----\n" + g.s(b64set, 64) + "\n" + g.s(b64set, 64) + "\n-----END RSA PRIVATE KEY-----\n"
	b := base64.StdEncoding.EncodeToString([]byte(pemText))
	g.shape("pem:base64", "tls.key: "+b, b)
	h := g.hex(64)
	g.shape("hex:eth private key", "ETH_PRIVATE_KEY=0x"+h, h)
	h = g.hex(64)
	g.shape("hex:wallet key prose", "the wallet private key: "+h, h)
	h = g.hex(64)
	g.shape("hex:deployer", `deployer_key: "0x`+h+`"`, h)
	var words []string
	for range 24 {
		words = append(words, bip39Sample[g.rng.IntN(len(bip39Sample))])
	}
	phrase := strings.Join(words, " ")
	g.shape("bip39:24 words", "seed phrase: "+phrase, phrase)
	phrase = strings.Join(words[:12], " ")
	g.shape("bip39:12 words", "mnemonic = \""+phrase+"\"", phrase)
	xprvBody := g.s(base58, 95)
	g.shape("bip32:xprv", "master key xprv9s21ZrQH143K"+xprvBody, xprvBody)
	wif := "K" + g.s(base58, 51)
	g.shape("wif", "wallet wif: "+wif, wif)
	jwtBody := g.s(urlset, 40) + "." + g.s(urlset, 43)
	g.shape("jwt:cookie", "Set-Cookie: session=eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOi"+jwtBody+"; HttpOnly", jwtBody)
	bt := g.s(urlset, 48)
	g.shape("header:bearer", "Authorization: Bearer "+bt, bt)
	at := g.an(36)
	g.shape("header:api-token", "Api-Token: "+at, at)
	oa := "sk-" + g.hex(48)
	g.shape("openai:hex sk-", "OPENAI_KEY="+oa, oa)
	oa = "sk-" + g.hex(32)
	g.shape("hex sk- in prose", "try the key "+oa+" for the eval", oa)
	vt := g.an(24)
	g.shape("vercel", "VERCEL_TOKEN="+vt, vt)
	cf := g.s(urlset, 40)
	g.shape("cloudflare api token", "CLOUDFLARE_API_TOKEN="+cf, cf)
	sbBody := g.s(urlset, 32)
	g.shape("supabase secret", "sb_secret_"+sbBody, sbBody)
	sj := g.s(urlset, 60) + "." + g.s(urlset, 43)
	g.shape("supabase service_role jwt", "SUPABASE_SERVICE_ROLE_KEY=eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJpc3MiOiJzdXBhYmFzZSIsInJlZiI6"+sj, sj)
	ts := g.hex(32)
	g.shape("twilio auth token", "TWILIO_AUTH_TOKEN="+ts, ts)
	ac := "AC" + g.hex(32)
	g.shape("twilio account sid", ac, ac)
	dd := g.hex(32)
	g.shape("datadog api key", "datadog api_key: "+dd, dd)
	nr := g.hex(36) + "NRAL"
	g.shape("newrelic license", nr, nr)
	hk := g.uuid()
	g.shape("heroku key env", "HEROKU_API_KEY="+hk, hk)
	at2 := g.s(urlset, 180) + "=" + strings.ToUpper(g.hex(8))
	g.shape("atlassian token", "ATATT3xFfGF0"+at2, at2)
	pm := g.hex(24) + "-" + g.hex(34)
	g.shape("postman key in prose", "postman key PMAK-"+pm, pm)
}
