// Package e2e runs odekmem against the real agent CLIs: pinned versions of
// Claude Code, Codex CLI and Gemini CLI installed from npm into a throwaway
// prefix, each run non-interactively in a throwaway HOME against a scripted
// model server on loopback, after `odekmem setup <agent>` exactly as a
// person runs it.
//
// The tests are skipped unless ODEKMEM_E2E=1 (make e2e sets it), and skip
// with a message when npm or its registry cannot be reached. Nothing but
// loopback is contacted by the agents: their proxy variables point at a
// loopback proxy that refuses and records every other request.
package e2e
