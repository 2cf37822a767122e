// Package engine is Extended Memory's implementation: the store and its
// files, the write transaction, trust and quarantine, extraction, recall
// and ranking, associations, the user model and its review queue, the size
// cap and eviction, the Hook and the memory tool.
//
// Its API is the whole surface the odekmem binary needs (the TUI, the CLI,
// the MCP server and the agent hooks). Agents use the small public facade
// in package memcore, and package memcore/review for a person's acts; both
// convert their own types to and from this package's.
//
// The store's on-disk format is odek's (FORMATS.md): atoms.json,
// chunks/<id>.md, quarantine.json, user_model.json, associations.json and a
// derived vector cache. Every write is one transaction (Store.update):
// collected under the store's mutex and the exclusive file lock, committed
// atomically, and reloaded from disk when a commit fails. The file layer is
// internal/disk, the vector state internal/index.
package engine
