// Package memcore is the Extended Memory library for coding agents: it
// stores small typed memories ("atoms") extracted from what a person tells
// their agent, keeps anything the agent merely read (tool output, files,
// web pages, MCP results, subagents) in quarantine until a person promotes
// it, and recalls the right few atoms each turn.
//
// # An agent needs four things
//
//   - Open a Store (Open(ctx, dir, opts); ctx, first on every method that
//     reads or writes, ends the waits for the lock file and for a model)
//     on a directory with a Config (Config{} is the defaults;
//     a literal names what it changes, and No… switches turn features
//     off), and optionally a memory LLM (Options.LLM, a memcore/llm.Client)
//     and an Embedder (Options.Embedder). Without them memcore works
//     offline: its own judgement of the person's words, rule-based
//     prediction, and a feature-hashing embedder. Package memcore/openai
//     has both for OpenAI-compatible servers; memcore itself builds no
//     clients and reads no configuration files and no environment.
//   - NewHook is the per-turn entry point: BeforeTurn returns the blocks to
//     inject (style guidance, user state, a return-after-break note, memory
//     atoms); RecordUserMessage extracts atoms from the person's message,
//     applies inline approvals ("odek, remember that …"; the name is
//     Config.AgentName) and links associations.
//   - NewTool is the agent's memory tool: typed methods (Remember, Search,
//     Forget, Pin, Quarantine, ListPending, RejectPending) for a program
//     that registers its own tools (the MCP server does), and CallJSON for
//     a model that speaks raw function-calling JSON (MemoryToolSpec
//     describes its arguments as a JSON Schema; json.Marshal gives the
//     OpenAI function object).
//     Provenance comes from the Turn, never from the model: Remember is
//     user_said only when the text is the person's own words verbatim. The
//     tool may forget or pin only what it added in the same session and
//     nobody reviewed since, and cannot promote, confirm, unpin or change
//     the user model.
//   - Close the Store: it closes the Hooks made on it first (each waits
//     for its background inference). After Close, methods return
//     ErrClosed.
//
// Store.Add, Search, Recall, Get and Forget serve an agent that manages
// memories itself. Add scans every text and redacts secrets before
// anything touches disk; only SourceUserSaid and SourceUserApproved atoms
// become live, and an empty Source is untrusted: trust is never the zero
// value. Search and Recall rank by 0.6·similarity + 0.4·retention behind a
// min-score gate, where retention is confidence × 0.5^(age/half-life) ×
// trust.
//
// What a person does with their memory — promote or forget quarantined
// atoms, pin, confirm or reject user-model inferences, resolve
// contradictions — are Store methods that each return the Undo of what
// they did; a person's surface records each in a memcore/review Session,
// the history its Undo walks back. Never hand these to a model: the model
// gets the Tool. The odekmem binary is the ready-made review surface (a
// TUI and a scriptable CLI) and uses exactly this API.
//
// # Inside
//
// Every write is one transaction (Store.update): collected under the
// store's mutex and the exclusive file lock, committed atomically, and
// reloaded from disk when a commit fails. The file layer is internal/disk,
// the vector state internal/index.
//
// The importable surface is counted by the repository's
// TestPublicSurface (package-level names and exported methods): 163 across
// memcore (145), memcore/review (4), memcore/llm (4) and memcore/openai
// (10), down from 205 and then 190; docs/library.md lists what went and
// what keeps it above the goal of 120.
//
// The store is one extended/ directory in the on-disk format odek writes
// (atoms.json, chunks/<id>.md, quarantine.json, user_model.json,
// associations.json and a derived vector cache). Every write is atomic and
// taken under a lock file (shared for readers, exclusive for writers); a
// process reloads whatever another process changed before it reads or
// writes; every file keeps the fields odekmem does not know.
//
// # Caveats
//
//   - The scanner's injection patterns are heuristics: quarantine until a
//     person promotes is the real defence. A compromised memory LLM can
//     still add misleading user_said atoms from the person's own message.
//   - The size cap is enforced on an estimate of the store's allocated
//     blocks (including the vector cache at its next snapshot); a file
//     system with unusual block accounting can overshoot it by a block or
//     two until the next write.
//   - The vector cache is written every 512 changes and on Compact; after
//     a crash, missing vectors are re-embedded from the chunk files at the
//     next open, so open time grows with the number of unsnapshotted atoms.
//   - odek itself does not take the store's lock, so an odek write can
//     drop an odekmem record it did not read. odekmem re-checks its own
//     records after each write and re-adds any dropped within ten minutes;
//     a record dropped while no odekmem process was running is adopted
//     from its orphan chunk at the next open, but as an untrusted
//     quarantine entry (source class recovered), for a person to promote.
//   - The offline hash embedder is lexical at heart; an HTTP embedder such
//     as nomic-embed-text gives better paraphrase recall.
package memcore
