// Command devcorpus writes the generated half of the scanner's developer
// benign corpus (memcore/scan/testdata/developer/generated.txt): commit
// messages, code-review comments, README sentences, issue titles and
// team conventions, built from templates and vocabulary with a fixed seed,
// so the file is reproducible:
//
//	go run ./memcore/scan/internal/devcorpus > memcore/scan/testdata/developer/generated.txt
//
// The vocabulary deliberately includes the words that made the old scanner
// block developer speech: override, ignore, forget, system prompt, token,
// password, secret, API key, send, print, upload, agent, bot, assistant,
// script, curl, rules, instructions.
package main

import (
	"fmt"
	"math/rand/v2"
	"os"
	"strings"
)

var (
	components = []string{"auth middleware", "billing job", "search indexer", "webhook handler", "rate limiter", "session store", "CSV importer",
		"notification service", "payment gateway client", "feature flag loader", "cache layer", "GraphQL resolver", "CLI parser", "config loader",
		"retry helper", "metrics exporter", "job scheduler", "upload endpoint", "admin panel", "prompt builder", "token refresher", "secret loader",
		"agent runtime", "chat bot", "system prompt template", "tool dispatcher", "audit logger", "TLS config", "password hasher", "API key validator"}
	files = []string{"internal/auth/middleware.go", "cmd/server/main.go", "pkg/cache/lru.go", "src/components/Button.tsx", "app/models/user.rb",
		"services/billing/worker.py", "config/prod.yaml", "Makefile", "docker-compose.yml", ".github/workflows/ci.yml", "scripts/release.sh",
		"docs/architecture.md", "prompts/system.txt", "internal/secrets/vault.go", "web/src/api/client.ts", "migrations/0042_add_index.sql"}
	verbsPast = []string{"Fix", "Add", "Remove", "Refactor", "Update", "Rename", "Simplify", "Document", "Test", "Speed up", "Harden", "Deprecate",
		"Revert", "Extract", "Inline", "Split", "Cache", "Validate", "Log", "Guard"}
	problems = []string{"nil pointer", "race condition", "off-by-one", "memory leak", "deadlock", "timeout", "panic on empty input", "wrong status code",
		"stale cache entry", "double submit", "missing index", "unbounded retry", "leaked goroutine", "slow query", "token expiry", "override not applied",
		"ignored error", "missing secret", "wrong password hash cost", "system prompt overflow"}
	langs   = []string{"Go", "TypeScript", "Python", "Rust", "Ruby", "Kotlin", "SQL", "Bash"}
	tools   = []string{"golangci-lint", "eslint", "prettier", "ruff", "mypy", "cargo clippy", "rubocop", "shellcheck", "terraform fmt", "buf lint"}
	envVars = []string{"DATABASE_URL", "REDIS_URL", "API_TOKEN", "SECRET_KEY", "STRIPE_API_KEY", "LOG_LEVEL", "PORT", "OPENAI_API_KEY", "SENTRY_DSN", "JWT_SECRET"}
	people  = []string{"@maria", "@dev-infra", "@sam", "the platform team", "the security team", "QA", "the on-call engineer", "@li.wei", "the SRE rotation"}
	dirs    = []string{"vendor", "node_modules", "dist", "build", "third_party", "generated", "testdata", ".cache", "coverage", "tmp"}
	numbers = []string{"2", "3", "5", "10", "30", "90", "100", "250", "1k", "10k"}
	units   = []string{"ms", "seconds", "minutes", "requests per second", "MB", "rows", "retries", "percent"}
	review  = []string{
		"Nit: %s could use a clearer name.", "Can we add a test for the %s case?", "This %s path needs a timeout.", "Why not reuse the existing %s here?",
		"Please split the %s change into its own PR.", "I'd move the %s logic out of the handler.", "Does the %s handle context cancellation?",
		"Looks good, but the %s needs a doc comment.", "We should log at debug, not info, in the %s.", "Could the %s return an error instead of panicking?",
		"The %s ignores the error from Close; is that intended?", "Let's override the default in the %s only for tests.",
		"Don't forget to update the %s docs.", "The %s should not print the token, even at debug level.", "Please don't send the password to the %s in plain text.",
	}
	readme = []string{
		"The %s reads its settings from %s.", "Set %s before starting the %s.", "Run `make test` to check the %s.",
		"The %s is written in %s and lives in %s.", "To debug the %s, set LOG_LEVEL=debug.", "The %s retries %s times before giving up.",
		"See %s for how the %s works.", "The %s never logs %s values.", "Contributions to the %s need a test and a changelog entry.",
		"The %s can be disabled with a feature flag.", "Configure the %s with %s; the default is fine for development.",
	}
	issues = []string{
		"%s: %s when %s is unset", "%s returns 500 on %s", "%s is slow with %s %s", "Support %s in the %s", "%s crashes after upgrading %s",
		"Docs: explain how to rotate %s", "%s ignores %s", "Flaky test in %s", "%s leaks %s", "%s override is not applied in %s",
	}
	conventions = []string{
		"Convention: run %s before every commit.", "Convention: keep %s files out of reviews; they are generated.", "Convention: ignore the %s dir in linters.",
		"Team convention: %s code is formatted with %s.", "Convention: secrets such as %s come from the vault, never from the repo.",
		"Decision: the %s owns retries, callers do not.", "We agreed that %s reviews every change to %s.", "Rule of thumb: no %s over %s %s.",
		"Always run %s on %s changes.", "Never hard-code %s; read it from the environment.",
	}
)

func pick(r *rand.Rand, xs []string) string { return xs[r.IntN(len(xs))] }

// fill fills each %s of template t with one of choices, drawn at random.
func fill(r *rand.Rand, t string, choices ...func() string) string {
	args := []any{}
	for range strings.Count(t, "%s") {
		args = append(args, choices[r.IntN(len(choices))]())
	}
	return fmt.Sprintf(t, args...)
}

func main() {
	r := rand.New(rand.NewPCG(11, 2026))
	from := func(xs []string) func() string { return func() string { return pick(r, xs) } }
	seen := map[string]bool{}
	var out []string
	emit := func(s string) {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	for len(out) < 900 {
		switch r.IntN(5) {
		case 0: // commit message
			v := pick(r, verbsPast)
			switch r.IntN(4) {
			case 0:
				emit(fmt.Sprintf("%s %s in %s", v, pick(r, problems), pick(r, components)))
			case 1:
				emit(fmt.Sprintf("%s: %s %s", strings.Split(pick(r, files), "/")[0], strings.ToLower(v), pick(r, problems)))
			case 2:
				emit(fmt.Sprintf("%s %s (%s)", v, pick(r, components), pick(r, files)))
			default:
				emit(fmt.Sprintf("%s %s; bump %s", v, pick(r, problems), pick(r, tools)))
			}
		case 1:
			emit(fmt.Sprintf(pick(r, review), pick(r, components)))
		case 2:
			emit(fill(r, pick(r, readme), from(envVars), from(files), from(langs), from(components)))
		case 3:
			s := fill(r, pick(r, issues), from(envVars), from(numbers), from(files), from(components))
			emit(strings.ToUpper(s[:1]) + s[1:])
		default:
			emit(fill(r, pick(r, conventions), from(tools), from(dirs), from(people), from(envVars), func() string {
				return pick(r, []string{pick(r, langs), pick(r, numbers), pick(r, units), pick(r, components)})
			}))
		}
	}
	fmt.Fprintln(os.Stdout, strings.Join(out, "\n"))
}
