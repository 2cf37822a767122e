// Command agedgen writes testdata/aged/aged.json, the fixture of
// `odekmem eval aged`: long-lived memories (decisions, conventions,
// preferences, facts, goals) 30–200 days old, hundreds of recent chat
// atoms (0–7 days old) on the same topics and with the same words, and one
// question per long-lived memory whose answer is that memory. The output is
// a pure function of this file (fixed seed), so the fixture can be
// regenerated and reviewed: go run ./internal/agedgen > testdata/aged/aged.json
package main

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"strings"
)

type atom struct {
	Key     string  `json:"key"`
	Type    string  `json:"type"`
	Text    string  `json:"text"`
	AgeDays float64 `json:"age_days"`
}

type question struct {
	Question string `json:"question"`
	Answer   string `json:"answer"`
}

type fixture struct {
	About     string     `json:"about"`
	Now       string     `json:"now"`
	Atoms     []atom     `json:"atoms"`
	Questions []question `json:"questions"`
}

// topic is one long-lived memory, the question it answers and the words
// recent chatter about the same subject uses.
type topic struct {
	key, typ, text, question string
	words                    []string
}

var topics = []topic{
	{"broker", "decision", "Decided to use Kafka as the message broker for order events instead of RabbitMQ, one topic per aggregate", "which message broker carries our order events?", []string{"order events", "the events consumer", "the Kafka consumer lag", "event replay"}},
	{"db", "decision", "Decided billing runs on PostgreSQL 16 as its database because we rely on row-level locking and SERIALIZABLE transactions", "what database does billing run on, and why?", []string{"the billing service", "billing", "the database", "the row locks"}},
	{"jwt", "decision", "Decided to sign JWT access tokens with Ed25519 keys stored in Secrets Manager, rotated through the kid header", "how do we sign JWT tokens?", []string{"the JWT refresh flow", "token expiry", "the auth middleware", "the signing step"}},
	{"money", "convention", "Convention: amounts of money are represented as int64 minor units (cents) plus a currency code, never as a float", "how should amounts of money be represented in code?", []string{"the money rounding", "the currency table", "the invoice amounts", "the payout amounts"}},
	{"tests", "preference", "Likes tests written table-driven, with a named subtest per case", "how do I like tests written?", []string{"the flaky tests", "the test run", "the integration tests", "test coverage"}},
	{"answers", "preference", "Wants short answers: the code first, then at most two sentences of explanation", "how short should your answers be?", []string{"the long answer", "the explanation", "the code review notes", "the summary"}},
	{"migrations", "convention", "Rule for database migrations: each one gets a migration test, and merged migrations are never edited", "what is the rule for database migrations?", []string{"the migration", "the schema change", "db/migrations", "the goose run"}},
	{"deploy", "decision", "Decided production deploys happen only through Argo CD syncing the gitops repo; nobody runs helm upgrade by hand", "how do production deploys happen?", []string{"the deploy", "the helm chart", "the rollout", "the staging deploy"}},
	{"editor", "preference", "Uses Neovim as the editor, with gopls, and tabs rendered four columns wide", "which editor do I use?", []string{"the editor config", "the gopls crash", "the formatter", "the plugin"}},
	{"oncall", "fact", "Is on call for payments every fourth week, handing over on Mondays at 10:00", "when am I on call?", []string{"the pager", "the incident", "the on-call handover", "the alert"}},
	{"lang", "fact", "The backend services are written in Go 1.23; the storefront is written in TypeScript with React", "what languages are our services written in?", []string{"the Go upgrade", "the React build", "the TypeScript errors", "the storefront"}},
	{"review", "convention", "Convention: a pull request needs one approving review and green CI before it can be merged; no self-merges", "what does a pull request need before it can be merged?", []string{"the pull request", "the review", "the CI run", "the merge queue"}},
	{"logging", "decision", "Decided logging is structured JSON through log/slog with a request_id on every line", "how do we do logging?", []string{"the log lines", "the noisy logs", "the log pipeline", "the request ids"}},
	{"tracing", "decision", "Decided traces go to Tempo through OpenTelemetry OTLP, and we sample 10% of them in production", "where do traces go and how much do we sample?", []string{"the trace", "the span", "the Tempo dashboard", "the sampling"}},
	{"cache", "decision", "Decided Redis is allowed only as a cache with a 15 minute TTL; we keep nothing authoritative there", "what are we allowed to keep in Redis?", []string{"the cache hit rate", "Redis memory", "the cache keys", "the TTL"}},
	{"branch", "convention", "Convention: name branches type/short-description, like fix/refund-rounding", "how should I name branches?", []string{"the branch", "the rebase", "the feature branch", "the stale branches"}},
	{"commits", "convention", "Convention: write commit messages in the imperative, saying what changed and why, with a subject under 72 characters", "how do we write commit messages?", []string{"the commit", "the squash", "the git history", "the changelog"}},
	{"tz", "preference", "Wants timestamps in the UTC timezone with ISO 8601 format, never local time", "which timezone and format should timestamps use?", []string{"the timestamp", "the date parsing", "the report dates", "the cron schedule"}},
	{"errors", "convention", "Convention: errors are wrapped with %w and a short lowercase step name; never log and return the same error", "how should errors be wrapped?", []string{"the error message", "the stack trace", "the panic", "the error handling"}},
	{"api", "decision", "Decided our public API style is REST with JSON and cursor pagination; gRPC only between internal services", "what style is our public API?", []string{"the API endpoint", "the pagination", "the gRPC client", "the API docs"}},
	{"secrets", "convention", "Convention: secrets must come from Vault at startup, never from env files or the repository", "where must secrets come from?", []string{"the Vault token", "the env file", "the secret rotation", "the credentials"}},
	{"k8s", "fact", "Production runs on EKS in the eu-west-1 region with three node groups; staging is one cluster in eu-central-1", "which region is production in?", []string{"the cluster", "the node group", "the pods", "the staging cluster"}},
	{"deps", "convention", "Convention: adding a new third-party dependency needs a short written justification in the pull request", "what do I have to do before adding a new dependency?", []string{"the go.mod", "the dependency bump", "the vendored package", "the library"}},
	{"perf", "goal", "Goal: our latency target is a checkout API p99 under 300 ms through the holiday season", "what latency target do we have for checkout?", []string{"the checkout latency", "the slow endpoint", "the load test", "the p99 graph"}},
	{"feature", "decision", "Decided Unleash is our feature flag tool; every flag is removed within two sprints of full rollout", "which feature flag tool do we use?", []string{"the flag", "the rollout percentage", "the toggle", "the experiment"}},
	{"backup", "fact", "Database backups run nightly at 02:00 UTC to S3, and we keep 35 days of point-in-time recovery", "how long do we keep database backups?", []string{"the backup job", "the restore drill", "the S3 bucket", "the snapshot"}},
	{"team", "fact", "Priya reviews all database migrations and owns the reconciliation job", "who reviews database migrations?", []string{"Priya", "the reconciliation job", "the review request", "the team sync"}},
	{"frontend", "decision", "Decided the frontend uses TanStack Query for server state; Redux stays out of the storefront", "what do we use for server state in the frontend?", []string{"the storefront state", "the query cache", "the React hooks", "the frontend bug"}},
	{"css", "preference", "Prefers to style new components with Tailwind utility classes, not CSS modules", "how do I like to style new components?", []string{"the CSS", "the component styles", "the design tokens", "the layout"}},
	{"lint", "convention", "Convention: CI runs golangci-lint with the errcheck, staticcheck and revive linters; warnings fail the build", "which linters run in CI?", []string{"the lint job", "the linter warning", "the CI pipeline", "the vet output"}},
	{"docs", "convention", "Convention: we record architecture decisions as ADRs in docs/adr, numbered, one page each", "where do we record architecture decisions?", []string{"the docs", "the design doc", "the wiki page", "the README"}},
	{"retry", "decision", "Decided the retry policy for background workers: exponential backoff capped at five attempts, then the dead-letter queue", "what is the retry policy for background workers?", []string{"the worker", "the failed job", "the job queue", "the backoff"}},
	{"idempotency", "decision", "Decided idempotency keys are stored in a Postgres table with a 24 hour expiry, scoped per merchant", "where are idempotency keys stored?", []string{"the idempotency key", "the duplicate charge", "the merchant", "the retry storm"}},
	{"tabs", "preference", "Prefers explanations structured conclusion first, without a preamble", "how should explanations be structured for me?", []string{"the write-up", "the explanation", "the long message", "the recap"}},
	{"testing-db", "convention", "Convention: database tests get a fresh Postgres per package from testcontainers", "how do database tests get a database?", []string{"the test database", "the container", "the slow test", "the fixture"}},
	{"ports", "convention", "Convention: tests listen on port 0 and read the chosen port back instead of hardcoding 8080", "which port should tests listen on?", []string{"the port", "the dev server", "the address in use error", "the listener"}},
	{"queue-order", "fact", "Order events are partitioned by merchant id so each merchant's events stay in order", "how are order events partitioned?", []string{"the partition", "the consumer group", "the rebalance", "the ordering bug"}},
	{"release", "goal", "Goal: ship payments v2 with idempotent charge endpoints before the Q4 code freeze", "what do we have to ship before the code freeze?", []string{"the release", "the freeze", "the v2 branch", "the launch checklist"}},
	{"observability", "decision", "Decided metrics and alerts go through Grafana with Prometheus; Datadog was dropped", "what do we use for metrics and alerts?", []string{"the metrics", "the alert rule", "the Grafana panel", "the Prometheus query"}},
	{"auth-lib", "decision", "Decided the admin panel keeps sessions server-side; JWTs are only for the public API", "do we use sessions or JWTs in the admin panel?", []string{"the admin panel", "the login page", "the session cookie", "the auth flow"}},
	{"hiring", "fact", "The team has four engineers: two backend, one frontend, one SRE", "how many engineers are on the team?", []string{"the team", "the interview", "the new hire", "the standup"}},
	{"uuid", "convention", "Convention: primary keys are UUIDv7 generated in the application, never serial integers", "what kind of primary keys do we use?", []string{"the primary key", "the id column", "the insert", "the uuid"}},
}

// chatter are recent, fading kinds of atom (intent, question,
// observation) and a few short-lived facts, written around a subject.
var chatter = []struct{ typ, tmpl string }{
	{"intent", "Wants to look at %s again this afternoon"},
	{"intent", "Plans to pair with Sam on %s tomorrow morning"},
	{"intent", "Going to clean up %s before the weekend"},
	{"question", "Asked why %s was slow in this morning's run"},
	{"question", "Asked whether anyone touched %s since Tuesday"},
	{"question", "Asked what changed in %s yesterday"},
	{"observation", "Said %s looked fine after the last retry"},
	{"observation", "Mentioned that %s was red for an hour after lunch"},
	{"observation", "Noted %s came up in standup again today"},
	{"fact", "Today's ticket is about %s, due Friday"},
	{"intent", "Will write a short note about %s for the team"},
	{"question", "Asked if %s needs another look before the demo"},
}

func main() {
	r := rand.New(rand.NewPCG(13, 2026))
	f := fixture{
		About: "odekmem eval aged: long-lived memories (30-200 days old) among recent chat (0-7 days old); each question's answer is one long-lived atom. Generated by go run ./internal/agedgen.",
		Now:   "2026-06-01T12:00:00Z",
	}
	for _, t := range topics {
		f.Atoms = append(f.Atoms, atom{Key: t.key, Type: t.typ, Text: t.text, AgeDays: 30 + float64(r.IntN(171*24))/24})
		f.Questions = append(f.Questions, question{Question: t.question, Answer: t.key})
	}
	n := 0
	for _, t := range topics {
		for _, w := range t.words {
			for _, c := range pick(r, 3) {
				n++
				f.Atoms = append(f.Atoms, atom{Key: fmt.Sprintf("chat-%04d", n), Type: chatter[c].typ,
					Text: capitalize(fmt.Sprintf(chatter[c].tmpl, w)), AgeDays: float64(r.IntN(7*24*60)) / (24 * 60)})
			}
		}
	}
	enc := json.NewEncoder(os.Stdout)
	enc.SetIndent("", "  ")
	if err := enc.Encode(f); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

// pick draws k distinct chatter templates.
func pick(r *rand.Rand, k int) []int {
	p := r.Perm(len(chatter))
	return p[:k]
}

func capitalize(s string) string { return strings.ToUpper(s[:1]) + s[1:] }
