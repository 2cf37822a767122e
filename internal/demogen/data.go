package main

// liveData is the demo corpus of live (trusted) atoms.
//
// Format, one record per line:
//
//	= <session_id> | <project> | <session start, RFC 3339>
//	<turn> | <type> | <flags> | <tags> | <text>
//
// flags: "-" or a comma list of "pin", "ua" (source_class user_approved instead
// of user_said) and "c=<confidence>". tags: comma list of topic tags used to
// derive task and semantic associations. Lines starting with '#' are comments.
const liveData = `
= s-2026-09-02-a | ~/src/payments-api | 2026-09-02T09:14:05Z
1 | goal | pin | idem,release | Goal: ship v2 of payments-api with idempotent charge endpoints before the Q4 freeze
2 | fact | - | stack | payments-api is a Go service: chi router, pgx v5 against PostgreSQL 16, deployed to EKS via Helm
4 | decision | ua | db | Decided to use PostgreSQL over MySQL for payments-api because of row-level locking and SERIALIZABLE isolation we trust
5 | preference | - | testing | Prefers table-driven tests with named subtests (t.Run with a descriptive name per case)
7 | convention | - | migr | Convention: always add a migration test after touching db/migrations
8 | file | - | migr | File: db/migrations/ holds goose SQL migrations, numbered 0001_ upward, never edited after merge
11 | intent | - | idem | Wants charge creation to accept an Idempotency-Key header and replay the stored response on retries
12 | decision | c=0.9 | idem | Decided idempotency keys live in a dedicated idempotency_keys table with a 24h expiry, not in Redis
14 | question | - | idem | Asked whether idempotency keys should be scoped per merchant or globally unique
17 | error | - | devport | Recurring error: ` + "`go test ./...`" + ` fails with 'address already in use' when the dev server is running on :8080
18 | convention | - | devport | Convention: tests bind to :0 and read the chosen port from the listener instead of hardcoding 8080
21 | preference | - | style | Wants short answers: code first, then at most two sentences of explanation
23 | fact | - | money | All amounts are stored as int64 minor units (cents); never use float64 for money in payments-api
24 | convention | pin | money | Convention: money is always a Money{Amount int64, Currency string} value, never a bare int
27 | file | - | money | File: internal/money/money.go defines Money and the currency rounding rules
30 | question | - | stripe | Asked how Stripe webhooks retry and whether we must dedupe by event id
31 | decision | - | stripe,idem | Decided to store processed Stripe event ids in webhook_events and ignore duplicates
35 | intent | c=0.8 | stripe | Plans to verify Stripe webhook signatures against the raw body before any JSON decoding
38 | fact | ua | people | Works with Priya on payments-api; she owns the reconciliation job and reviews all migrations

= s-2026-09-09-a | ~/src/webshop | 2026-09-09T14:02:41Z
1 | fact | - | stack | webshop is a TypeScript + React 18 storefront built with Vite, tested with Vitest and Playwright
2 | goal | pin | checkout | Goal: cut checkout drop-off by rebuilding the checkout flow as a single page with inline validation
4 | preference | - | ts | Prefers strict TypeScript: strict mode on, no any, and unknown plus narrowing at API boundaries
5 | convention | - | react | Convention: React components are function components with named exports; no default exports
7 | decision | c=0.85 | state | Decided to use TanStack Query for server state and keep Redux out of webshop entirely
9 | file | - | checkout | File: src/features/checkout/CheckoutPage.tsx is the entry point of the checkout flow
10 | intent | - | checkout,forms | Wants the address form to validate per field on blur, not on every keystroke
13 | error | - | vite | Recurring error: Vite dev server shows a blank page after switching branches until node_modules/.vite is deleted
15 | convention | - | react | Convention: styling uses CSS Modules; no new styled-components code
18 | question | - | a11y | Asked how to make the custom card-number input announce formatting changes to screen readers
20 | decision | - | forms,checkout | Decided to use react-hook-form with zod schemas shared between client validation and API types
24 | preference | c=0.7 | pnpm | Uses pnpm, not npm or yarn, in every JS repo
26 | fact | - | bff | webshop talks to payments-api only through the /api/checkout BFF route, never directly from the browser
29 | convention | - | testing,checkout | Convention: every checkout bug fix gets a Playwright test reproducing it first
33 | file | - | bff | File: src/api/client.ts wraps fetch with retries and attaches the CSRF token
36 | observation | ua | style | Got impatient when an answer explained React basics; skip the fundamentals

= s-2026-09-15-a | ~/src/infra | 2026-09-15T10:30:12Z
1 | fact | - | stack | infra is Terraform 1.9 with one module per service; state in S3 with DynamoDB locking, AWS eu-central-1
2 | goal | pin | eks | Goal: move payments-api and webshop from the old ECS cluster to EKS by end of November
4 | convention | ua | tf | Convention: every Terraform change runs terraform fmt -recursive and tflint before plan
6 | decision | ua | tfstate | Decided to split Terraform state per environment (dev, staging, prod) instead of one workspace-based state
8 | file | - | eks | File: modules/eks/main.tf defines the cluster, managed node groups and IRSA roles
10 | error | - | tfstate | Recurring error: 'Error acquiring the state lock' after an interrupted apply; fix is force-unlock with the lock id from the message
12 | preference | c=0.8 | tf | Prefers explicit module version pins (?ref=v1.4.2) over tracking main
15 | intent | - | eks,irsa | Wants IRSA for every pod that touches AWS instead of node-level instance profiles
17 | question | - | eks | Asked whether Karpenter is worth it over managed node groups for a cluster this small
19 | decision | c=0.75 | eks | Decided to stay on managed node groups for now and revisit Karpenter after the migration
23 | convention | pin | secrets | Convention: secrets live in AWS Secrets Manager and are read via External Secrets; never commit them to tfvars
26 | fact | - | env | Production AWS account is separate from dev/staging; prod applies only run from CI with the deploy role
30 | preference | - | review | Wants terraform plan output summarized as lists of resources to add, change and destroy, not pasted in full

= s-2026-09-22-a | ~/src/payments-api | 2026-09-22T08:50:33Z
2 | intent | - | jwt | Wants to replace the hand-rolled session cookies in the payments-api admin with short-lived JWTs plus refresh tokens
3 | file | - | jwt | File: internal/auth/jwt.go holds token refresh logic
5 | decision | ua | jwt | Decided on 15-minute access tokens and 30-day rotating refresh tokens stored hashed in the database
7 | convention | - | jwt,testing | Convention: any change under internal/auth needs tests for expired, not-yet-valid and wrong-audience tokens
9 | question | - | jwt | Asked whether to sign tokens with EdDSA or RS256; leaning towards EdDSA for smaller keys
10 | decision | c=0.8 | jwt,secrets | Decided to sign JWTs with Ed25519 keys loaded from Secrets Manager, rotated via the kid header
13 | error | - | jwt | Recurring error: clock skew between pods made freshly issued tokens fail the nbf check; added 30s leeway
16 | fact | - | db | Connection pool is pgxpool with max 20 conns per pod; Postgres max_connections is 200
18 | preference | - | errs | Prefers wrapping errors with fmt.Errorf("...: %w", err) and checking with errors.Is/As, never string matching
21 | convention | - | log | Convention: structured logging with log/slog; never log full card numbers, tokens or request bodies
24 | error | - | clock,testing | Recurring error: TestRefreshRotation flakes under -race because two goroutines share one fake clock
25 | intent | - | clock | Wants a deterministic fake clock injected via a Clock interface instead of time.Now in auth code
28 | file | - | clock | File: internal/clock/clock.go defines the Clock interface and the fake used in tests
32 | preference | - | style | Don't add comments that restate the code; comments should explain why
36 | goal | - | jwt,release | Goal: admin login on JWTs with refresh rotation merged before the EKS cutover

= s-2026-09-30-a | ~/src/dotfiles | 2026-09-30T19:40:08Z
1 | fact | - | stack | dotfiles are managed with GNU stow, one package per tool (nvim, zsh, git, tmux)
3 | preference | - | nvim | Uses Neovim with lazy.nvim; prefers Lua config over Vimscript
5 | intent | - | nvim,lsp | Wants gopls and typescript-language-server set up via nvim-lspconfig with format-on-save
7 | error | - | lsp | Recurring error: gopls reports 'no packages found' in Neovim when opened from the root of a go.work workspace
9 | convention | ua | git | Convention: commit messages follow Conventional Commits (feat:, fix:, chore:) with an imperative subject under 72 chars
12 | preference | - | shell | Prefers zsh with a minimal starship prompt and no oh-my-zsh
14 | decision | c=0.7 | shell | Decided to drop tmux-resurrect; sessions are recreated from a small script instead
17 | file | - | git | File: git/.gitconfig sets pull.rebase=true and rerere.enabled=true
20 | question | - | shell | Asked how to make direnv load .envrc per project without slowing down shell startup
23 | goal | c=0.6 | shell | Goal: shell startup under 100 ms on the work laptop
26 | fact | - | machine | Work laptop is an M3 MacBook Pro; the home box is a Fedora desktop

= s-2026-10-03-a | ~/src/payments-api | 2026-10-03T09:05:51Z
1 | intent | - | recon | Wants the nightly reconciliation job to compare our ledger with Stripe balance transactions and alert on drift
3 | fact | - | recon | Reconciliation runs as a Kubernetes CronJob at 02:00 UTC and writes a report to the recon_runs table
5 | decision | - | recon | Decided reconciliation tolerates no drift: any mismatch in minor units pages on-call
6 | question | - | recon,stripe | Asked how to paginate Stripe balance transactions without missing items created during the run
9 | file | - | recon | File: cmd/recon/main.go is the reconciliation entry point; the logic lives in internal/recon
11 | convention | pin | migr | Convention: migrations must stay backward compatible with the previous release (expand, deploy, then contract)
13 | error | - | migr | Recurring error: goose migration 0042 fails on staging because the index already exists; use CREATE INDEX CONCURRENTLY IF NOT EXISTS
14 | decision | ua | migr,deploy | Decided to run migrations as a separate Helm pre-upgrade job rather than at app start
17 | preference | c=0.9 | testing,db | Prefers testcontainers-go Postgres for repository tests over mocking the database
19 | fact | - | testing,ci | Integration tests sit behind the integration build tag and run in CI only on main
22 | intent | - | ratelimit | Wants per-merchant rate limiting on the charge endpoint: 100 requests/s, burst 200
25 | decision | c=0.7 | ratelimit | Decided to rate limit in-process with golang.org/x/time/rate first, Redis later if needed
28 | question | - | ratelimit | Asked how rate limits behave across 3 replicas when each pod holds its own limiter
31 | convention | - | apierr | Convention: API errors use RFC 9457 problem+json with a stable type URI per error
34 | observation | - | review | Tends to ask for a summary of risky changes before approving a migration
37 | goal | - | recon | Goal: zero unexplained reconciliation drift for a full month

= s-2026-10-08-a | ~/src/webshop | 2026-10-08T15:20:17Z
2 | intent | - | i18n | Wants German and French translations in webshop, starting with the checkout flow
3 | decision | - | i18n | Decided to use react-i18next with namespaced JSON files per feature
5 | file | - | i18n | File: src/locales/<lang>/checkout.json holds the checkout strings
7 | convention | - | i18n | Convention: no hardcoded user-facing strings in components; everything goes through t()
8 | fact | - | money | Prices come from payments-api as minor units and are formatted client-side with Intl.NumberFormat
10 | error | - | i18n,testing | Recurring error: Vitest fails with 'i18next: no instance' because the setup file is not loaded in workspace mode
12 | preference | - | testing | Prefers Testing Library queries by role and label over test ids
15 | question | - | perf | Asked why the product listing re-renders on every keystroke in the search box
16 | decision | c=0.8 | perf | Decided to debounce search input by 250 ms and memoize the product grid
19 | goal | - | perf | Goal: Largest Contentful Paint under 2.5 s on the product page on a mid-range Android phone
22 | convention | - | ci | Convention: webshop PRs must pass pnpm typecheck, pnpm lint and pnpm test before review
25 | error | - | ci | Recurring error: Playwright tests time out in CI because the preview server is not ready; waiting on port 4173 fixes it
27 | file | - | ci | File: .github/workflows/webshop.yml runs the typecheck, lint, unit and e2e jobs
30 | preference | ua | review | When reviewing a diff, wants the riskiest change called out first

= s-2026-10-14-a | ~/src/infra | 2026-10-14T11:10:44Z
1 | intent | - | eks | Wants a staging EKS cluster first, then prod, each in its own VPC
3 | fact | - | eks | Staging cluster is odek-staging-eks running Kubernetes 1.31
5 | decision | ua | ingress | Decided to use the AWS Load Balancer Controller with one shared ALB per environment
7 | error | - | irsa,ingress | Recurring error: aws-load-balancer-controller fails with AccessDenied when the IRSA trust policy names the wrong service account
9 | convention | - | tf | Convention: every module has a README with inputs and outputs generated by terraform-docs
11 | file | - | eks | File: envs/staging/main.tf wires the vpc, eks and rds modules for staging
13 | question | - | db | Asked whether to move the payments Postgres to Aurora or keep RDS for PostgreSQL 16
14 | decision | c=0.85 | db | Decided to keep RDS PostgreSQL 16 Multi-AZ; Aurora's cost isn't justified yet
17 | preference | - | tf | Prefers for_each over count for anything that might be renamed
20 | convention | - | tf,cost | Convention: all AWS resources carry owner, service and env tags via default_tags in the provider
23 | error | - | tf,eks | Recurring error: terraform plan shows a perpetual diff on the EKS addon version unless resolve_conflicts_on_update is set
26 | intent | - | otel | Wants the OpenTelemetry collector deployed as a DaemonSet shipping traces to Grafana Tempo
29 | goal | c=0.7 | cost | Goal: keep the monthly AWS bill for staging under $600

= s-2026-10-21-a | ~/src/payments-api | 2026-10-21T13:40:29Z
1 | intent | - | otel | Wants OpenTelemetry tracing in payments-api with spans around every database call and Stripe request
2 | decision | - | otel | Decided to use otelhttp for the router and a pgx tracer for queries
4 | file | - | otel | File: internal/telemetry/otel.go sets up the tracer provider and the OTLP exporter
6 | convention | - | otel | Convention: span names are <package>.<Operation> and never include ids
8 | error | - | otel | Recurring error: traces missing in staging because OTEL_EXPORTER_OTLP_ENDPOINT pointed at the node IP instead of the collector service
11 | question | c=0.75 | otel | Asked whether to sample 100% of traces in staging and 10% in prod
12 | decision | - | otel | Decided on parent-based sampling: 100% in staging, 10% in prod, always keep error traces
15 | fact | - | idem | Idempotency keys are unique on (merchant_id, key); replays return the original status code and body
18 | error | - | idem | Recurring error: concurrent retries with the same Idempotency-Key both inserted; fixed with INSERT ... ON CONFLICT DO NOTHING and a re-read
20 | convention | ua,pin | idem | Convention: every mutating endpoint in payments-api must be idempotent by key
23 | preference | - | review | Wants pull request descriptions laid out as Why, What, How to test
26 | intent | - | ci | Wants payments-api CI to run golangci-lint, go vet and tests with -race in under 5 minutes
27 | error | - | ci | Recurring error: golangci-lint times out in CI on a cold cache; cache ~/.cache/golangci-lint between runs
30 | file | - | ci | File: .github/workflows/payments.yml is the payments-api CI pipeline

= s-2026-10-27-a | ~/src/webshop | 2026-10-27T16:05:02Z
1 | intent | - | payelem,checkout | Wants to swap the custom card form for Stripe Payment Element to get Apple Pay and SEPA for free
3 | decision | ua | payelem,bff | Decided on Stripe Payment Element with a PaymentIntent created by payments-api; the client secret comes via the BFF
5 | question | - | payelem,testing | Asked how to test Payment Element flows in Playwright without hitting the real Stripe iframe
6 | decision | c=0.7 | payelem,testing | Decided to mock Stripe.js in unit tests and use Stripe test mode with test cards only in the nightly e2e run
9 | error | - | payelem | Recurring error: 'IntegrationError: Invalid value for elements(): clientSecret' when the BFF answers before the PaymentIntent exists
12 | file | - | payelem | File: src/features/checkout/PaymentStep.tsx mounts the Payment Element
14 | convention | pin | secrets | Convention: never put API keys in the frontend bundle; only the Stripe publishable key may appear, in a VITE_ env var
16 | preference | - | ts | Prefers discriminated unions for UI state ('idle' | 'loading' | 'error' | 'success') over boolean flags
19 | fact | - | a11y | webshop must meet WCAG 2.1 AA because of a B2B customer contract
21 | convention | ua | a11y | Convention: run axe in Playwright on every checkout page; new violations fail the build
24 | question | - | state | Asked whether to move cart state from React context into the TanStack Query cache
25 | decision | - | state | Decided to keep the cart in a small zustand store persisted to localStorage
28 | error | - | build | Recurring error: production build fails with 'Cannot access before initialization' from a circular import between cart and checkout
31 | goal | - | a11y,checkout | Goal: zero axe violations on checkout by the end of the year

= s-2026-11-03-a | ~/src/dotfiles | 2026-11-03T21:15:36Z
1 | intent | - | nvim,gotest | Wants a Neovim keybinding that runs the nearest Go test and shows the output in a split
2 | decision | - | nvim,gotest | Decided to use neotest with the neotest-golang adapter
5 | file | - | nvim | File: nvim/.config/nvim/lua/plugins/test.lua configures neotest
7 | error | - | gotest | Recurring error: neotest-golang reports 'no tests found' for table-driven subtests unless gotestsum is installed
9 | preference | - | nvim | Prefers keymaps under <leader>t for tests and <leader>g for git
11 | convention | - | dotfiles | Convention: every dotfiles change is tested in a fresh container with make test-install before pushing
14 | fact | - | git | Signs commits with an SSH key through the 1Password SSH agent
16 | question | - | git | Asked how to make git use different emails for work and personal repos automatically
17 | decision | ua | git | Decided on includeIf "gitdir:~/src/" in .gitconfig for the work identity
20 | preference | c=0.8 | shell | Wants aliases short but memorable, e.g. gst, gco, and k for kubectl

= s-2026-11-09-a | ~/src/infra | 2026-11-09T10:00:19Z
1 | intent | - | eks | Wants the prod EKS cluster built from the same modules as staging, with no hand edits
2 | fact | - | eks | Prod cluster odek-prod-eks spans three AZs with separate node groups for system and workload pods
4 | decision | ua | deploy | Decided to deploy apps with Argo CD watching a gitops repo; Terraform only manages the platform
6 | convention | - | deploy | Convention: no kubectl apply against prod by hand; every change goes through the gitops repo
8 | error | - | deploy | Recurring error: Argo CD shows apps OutOfSync forever because of a defaulted field in the HPA spec; ignoreDifferences fixes it
11 | file | - | deploy | File: gitops/apps/payments-api/values-prod.yaml holds the prod Helm values for payments-api
13 | question | - | dns,eks | Asked how to cut DNS over from ECS to EKS without downtime
14 | decision | c=0.8 | dns,eks | Decided to use weighted Route 53 records to shift traffic 10/50/100 over two days
17 | preference | - | review | Wants a rollback plan written down before any prod cutover
19 | goal | - | eks,dns | Goal: decommission the old ECS cluster by mid-December
22 | error | - | irsa | Recurring error: 'InvalidParameterException: role cannot be assumed' right after creating the EKS cluster; retrying after 30 s works
25 | convention | - | secrets,db | Convention: database passwords rotate every 90 days through Secrets Manager rotation lambdas

= s-2026-11-16-a | ~/src/payments-api | 2026-11-16T09:30:58Z
1 | intent | - | refunds | Wants partial refunds in payments-api; a refund may never exceed the captured amount minus earlier refunds
3 | decision | - | refunds,money | Decided to model refunds as separate ledger entries linked to the charge, never by mutating the charge row
5 | file | - | refunds | File: internal/ledger/refund.go implements partial refund validation
7 | convention | - | money | Convention: any arithmetic on Money checks currency equality and returns an error on mismatch
9 | error | - | refunds,money | Recurring error: refund test fails with 'currency mismatch' because fixtures default to USD while the charge is EUR
11 | question | - | refunds,db | Asked whether refunds should lock the charge row with SELECT ... FOR UPDATE
12 | decision | ua,c=0.9 | refunds,db | Decided to lock the charge row FOR UPDATE inside the refund transaction so concurrent refunds serialize
15 | preference | - | testing,money | Wants fuzz tests (go test -fuzz) for parsers and money arithmetic
18 | fact | - | people,migr | Priya is on leave until December; migrations now need a second reviewer from the platform team
20 | intent | - | jwt | Wants to remove the legacy session cookie path from the payments-api admin now that JWT login is live
22 | error | - | jwt | Recurring error: refresh rotation returned 401 for users with two open tabs; added a 10 s grace window for the previous token
25 | convention | ua | jwt | Convention: refresh tokens are single-use; reuse of a rotated token revokes the whole token family
29 | question | - | otel,perf | Asked why p99 latency of POST /charges doubled after enabling tracing
30 | decision | c=0.65 | otel,perf | Decided to batch span export and raise the OTLP exporter queue size before reducing sampling

= s-2026-11-23-a | ~/src/webshop | 2026-11-23T14:45:23Z
1 | intent | - | flags,checkout | Wants to ship the new single-page checkout behind a feature flag to 10% of traffic
2 | decision | ua | flags | Decided to use the existing Unleash instance for feature flags instead of a homegrown config
4 | file | - | flags | File: src/lib/flags.ts wraps the Unleash client and exposes useFlag()
6 | convention | - | flags | Convention: every feature flag has an owner and a removal date in its description
8 | error | - | flags | Recurring error: the old checkout flashes for a frame on first load; fixed by bootstrapping flags into the HTML
11 | fact | - | metrics | Checkout conversion baseline is 2.9% on desktop and 1.7% on mobile (September numbers)
13 | question | - | metrics | Asked how to measure checkout drop-off per step without adding a new analytics vendor
14 | decision | c=0.75 | metrics,checkout | Decided to emit step events to the existing Plausible setup with custom props
17 | preference | - | style | Wants the agent to ask before adding any new npm dependency
19 | error | - | apitypes | Recurring error: pnpm typecheck fails on generated API types after payments-api adds a field; regenerate with pnpm gen:api
21 | convention | ua | apitypes | Convention: API types are generated from the payments-api OpenAPI spec; never edit src/api/generated by hand
24 | intent | - | a11y,checkout | Wants keyboard focus moved to the first invalid field when checkout submission fails
27 | goal | - | checkout,release | Goal: new checkout on 100% of traffic before the Christmas code freeze on Dec 15
30 | decision | c=0.8 | state,bff | Decided to move the cart from zustand to TanStack Query, backed by a new /api/cart BFF route so a cart follows the shopper across devices

= s-2026-11-27-a | ~/src/payments-api | 2026-11-27T10:15:47Z
1 | intent | - | payouts | Wants a payouts report endpoint for merchants listing settled amounts per day
3 | question | - | payouts,db | Asked whether the payouts report should read from a replica to keep load off the primary
4 | decision | c=0.8 | payouts,db | Decided to serve the payouts report from the read replica and accept up to 5 s of staleness
6 | file | - | payouts | File: internal/reports/payouts.go builds the daily settlement aggregation
8 | error | - | payouts,time | Recurring error: payouts totals are off by one day for merchants in UTC-8; aggregate by merchant timezone, not UTC
10 | convention | ua | time | Convention: timestamps are stored as timestamptz in UTC and converted to the merchant timezone only at the edge
13 | preference | c=0.85 | errs | Wants sentinel errors exported from the domain package and mapped to HTTP status codes in one place
15 | fact | - | otel,perf | POST /charges p99 is back to 180 ms after the exporter tuning
17 | intent | - | migr,jwt | Wants to drop the legacy sessions table once the cookie path is gone, using an expand/contract migration
20 | observation | - | style | Usually opens the day's session with 'where did we leave off on ...'
22 | goal | - | release | Goal: tag payments-api v2.0.0 before the Dec 15 code freeze
25 | decision | ua | ratelimit | Decided to move rate limiting from golang.org/x/time/rate to go-redis/redis_rate on the shared Redis, so the per-merchant limit holds across all 3 replicas
`
