// Package memcore is the Extended Memory library: it stores small typed
// memories ("atoms") extracted from what a person tells their coding agent,
// keeps anything the agent merely read in quarantine until a person
// promotes it, and recalls the right few atoms each turn.
//
// # Pieces
//
//   - Store (Open) is one extended/ directory in the on-disk format odek
//     writes: atoms.json, chunks/<id>.md, quarantine.json, user_model.json,
//     associations.json and a derived vector cache. Metadata is held in
//     memory; every write is atomic and taken under an flock, and a process
//     reloads whatever another process changed before it writes.
//   - Add scans every text (package scan), redacts secrets, and routes it:
//     user_said and user_approved atoms become live and recallable; every
//     tainted source class, and anything the scanner blocks, goes to
//     quarantine. Promote, SetPin, Forget, Confirm and Reject are the
//     human-gated operations.
//   - Search and Recall run the design's ranking: vector candidates widened
//     by BM25, a min-score gate on the embedder-calibrated similarity, and
//     the composite 0.6·similarity + 0.4·retention, where retention is
//     confidence × 0.5^(age/half-life) × trust.
//   - Hook is the per-turn entry point: BeforeTurn returns the blocks to
//     inject (style guidance, user state, a return-after-break note, memory
//     atoms) with predicted-intent recall and LLM rerank; RecordUserMessage
//     extracts atoms from the person's message, applies inline approvals,
//     links associations and runs user-state inference on its cadence.
//   - Tool is the agent's memory tool (MemoryToolSpec describes it as
//     data). It decides provenance itself (verbatimUserSpan), may forget or
//     pin only what it added in the same session, and cannot promote,
//     confirm, unpin or change the user model.
//   - Open builds what the Config says: the embedder (Config.Embedding)
//     and the memory LLM (Config.LLM). The library reads no configuration
//     files or environment variables; a Config literal means the defaults
//     field by field.
//   - Lifecycle: Hook.Close waits for (or cancels) the Hook's background
//     inference; Store.Close waits for the store's background work. After
//     Close, methods return ErrClosed.
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
//   - odek itself does not take the store's lock. odekmem's writes are
//     atomic and it reloads on change, but an odek process writing at the
//     same moment can still overwrite a concurrent odekmem change.
//   - The offline hash embedder is lexical at heart; an HTTP embedder such
//     as nomic-embed-text gives better paraphrase recall.
package memcore
