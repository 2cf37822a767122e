package testcreds

import (
	"crypto/sha1"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"math/rand/v2"
	"strings"
)

// LookAlikes returns texts that resemble credentials and are not: commit
// hashes, UUIDs, content hashes in lockfiles and go.sum, placeholders in
// example configs, base64 of ordinary text, words after "password" in
// prose, names and versions after vendor names. A redactor must leave
// every one of them as it is.
func LookAlikes(seed uint64) []string {
	rng := rand.New(rand.NewPCG(seed, 23))
	hexN := func(n int) string { return randStr(rng, hexset, n) }
	uuid := func() string { return hexN(8) + "-" + hexN(4) + "-4" + hexN(3) + "-8" + hexN(3) + "-" + hexN(12) }
	sum := func(s string) []byte { h := sha512.Sum512([]byte(s)); return h[:] }
	var out []string
	for i := 0; i < 3; i++ {
		word := []string{"react", "lodash", "left-pad", "typescript", "esbuild"}[rng.IntN(5)]
		sha1h := sha1.Sum([]byte(word + fmt.Sprint(i)))
		sha256h := sha256.Sum256([]byte(word + fmt.Sprint(i)))
		out = append(out,
			"commit "+hexN(40)+"\nAuthor: Dev <dev@example.com>\n\n    fix flaky test",
			"git cherry-pick "+hexN(12)+" && git revert "+hexN(40),
			"request id "+uuid()+" failed, retrying as "+uuid(),
			`"id": "`+uuid()+`", "tenant": "`+uuid()+`"`,
			`"node_modules/`+word+`": {"version": "1.2.`+fmt.Sprint(i)+`", "resolved": "https://registry.npmjs.org/`+word+`/-/`+word+`-1.2.`+fmt.Sprint(i)+`.tgz", "integrity": "sha512-`+base64.StdEncoding.EncodeToString(sum(word+fmt.Sprint(i)))+`"}`,
			word+"@^1.2.0:\n  version \"1.2."+fmt.Sprint(i)+"\"\n  integrity sha512-"+base64.StdEncoding.EncodeToString(sum(word))+"\n",
			"github.com/pkg/errors v0.9."+fmt.Sprint(i)+" h1:"+base64.StdEncoding.EncodeToString(sha256h[:]),
			`checksum = "`+hex.EncodeToString(sha256h[:])+`"`,
			"sha1: "+hex.EncodeToString(sha1h[:])+"  "+word+".tar.gz",
			"image: ghcr.io/acme/api@sha256:"+hex.EncodeToString(sha256h[:]),
			`<script src="https://cdn.example.com/`+word+`.min.js" integrity="sha384-`+base64.StdEncoding.EncodeToString(sum(word)[:48])+`" crossorigin="anonymous"></script>`,
		)
	}
	out = append(out,
		// placeholders in example configs
		"OPENAI_API_KEY=<your-api-key>",
		"API_TOKEN=your_token_here",
		"DB_PASSWORD=${DB_PASSWORD}",
		"password: {{ .Values.db.password }}",
		"GITHUB_TOKEN: ${{ secrets.GITHUB_TOKEN }}",
		"export AWS_SECRET_ACCESS_KEY=xxxxxxxxxxxxxxxxxxxxxxxx",
		"password = \"changeme\"",
		"secret: '********'",
		"token=<redacted>",
		"api_key = os.environ[\"API_KEY\"]",
		"password=os.getenv('DB_PASSWORD')",
		"DATABASE_URL=postgres://user:password@localhost:5432/app",
		"redis://:<password>@localhost:6379",
		"mysql -u root -p",
		"docker login -u ci --password-stdin ghcr.io",
		"curl -u $USER:$TOKEN https://api.example.com",
		// base64 of ordinary text
		"payload: "+base64.StdEncoding.EncodeToString([]byte("The quick brown fox jumps over the lazy dog, again and again.")),
		"note="+base64.StdEncoding.EncodeToString([]byte("Remember to run the migrations before deploying to staging.")),
		// words after "password" in prose
		"The password policy requires twelve characters and a symbol.",
		"Password: must be rotated every ninety days.",
		"The password is stored in Vault under secret/db.",
		"If the token is expired, run the login command again.",
		"The API key is required for every request.",
		"Use --token to pass the access token, or set GITHUB_TOKEN.",
		"Reset your password from the account page; the password field is hidden.",
		"my pass is valid until June",
		// names and versions after vendor names
		"heroku app: my-api-staging-2024",
		"sentry release: backend@2.14.3",
		"jira ticket: PLAT-12345",
		"datadog monitor id: 1234567",
		"twitter handle: @odekmem_dev",
		"twitch channel = speedrun_archive_2023",
		"slack channel: #deploys-prod-eu",
		"linear issue: ENG-4821",
		"cloudflare zone: example-com-production",
		// identifiers that look random but are not secrets
		"func TestParseConfigWithEnvironmentOverrides2(t *testing.T)",
		"the build output is in dist/assets/index-4f9a2c1b.js",
		"pip install torch==2.3.1+cu121 --index-url https://download.pytorch.org/whl/cu121",
		"ORCID 0000-0002-1825-0097, DOI 10.1038/s41586-020-2649-2",
		strings.Repeat("long task ", 5)+"please make sure the build is green before you merge this change into main today",
	)
	return out
}
