// Package llm holds every task the Extended Memory design gives the memory
// LLM, its prompts and the parsing of what models reply, each with a
// deterministic non-LLM behaviour for when no model is configured. The
// tasks run on the public memcore/llm.Client an agent hands memcore (the
// aliases in client.go); package memcore/openai has the stock client.
//
// The package does no file I/O and knows nothing about the store; memcore
// calls it and decides what to persist.
//
// # Parsing model output
//
// ParseValue, ParseArray and ParseObject find the JSON in what small models
// actually say: ``` fences, prose before and after, <think> blocks, an
// object wrapping the wanted array. They reject, whole, what is ambiguous
// or broken: duplicate and case-variant duplicate keys (ErrDuplicateKey),
// trailing commas and other syntax errors (ErrMalformedJSON), more than
// 64 KiB (ErrTooLarge), nesting deeper than 32.
//
// # Tasks and their fallbacks
//
//	Extract         per-turn extraction, design prompt verbatim; nil Client → ExtractRules
//	ExtractRules    rule-based extraction (preferences, decisions, conventions, goals,
//	                intents, facts, questions, errors, file paths)
//	InferUserState  user-model diff; nil Client → ErrNoLLM; style.* and interaction.*
//	                always speculative, direct only for focus.* and technical.*
//	PredictIntents  follow-up questions; nil Client → PredictRules (keyword templates)
//	Rerank          reorder candidate ids; nil Client → ErrNoLLM (keep your order)
//	ResumeSummary   "Where you left off: … Next likely step: …"; nil Client → ResumeRules
//	ResolveAnaphora deterministic first-pronoun replacement, gated by score
//	StyleDirective  deterministic style-guidance line from confirmed values
//
// Task errors wrap the client's error with the task name ("llm: rerank:
// …"). Callers are expected to degrade, never to fail the agent's turn:
// extraction can fall back to ExtractRules, prediction to literal-query
// recall, rerank to the composite-score order.
//
// # Trust
//
// Outputs never carry provenance: Candidate and Update have no source
// field, and any source or trust field the model invents is ignored. The
// caller assigns source classes (user_said for per-turn extraction,
// inferred/pending for speculative user-model updates) and scans every
// output before it is written. Prompts only ever contain what the caller
// passes in; callers must pass only user messages and trusted atoms.
// Extract, ExtractRules and PredictIntents remove <untrusted_content_*>
// blocks from messages first.
//
// # Caveats
//
//   - The rule-based extractor is English-only and pattern-based. It misses
//     paraphrased or implicit statements an LLM would catch, and its
//     third-person rewriting ("my" → "their") is word-level, so a few
//     outputs read stiffly. It prefers missing an atom to storing a command.
//   - ResolveAnaphora recognises referential pronouns from a fixed list of
//     verbs and prepositions. Unlisted verbs leave the message unchanged,
//     and only the first pronoun is ever considered: if it is a dummy ("It
//     works, now refactor it") nothing is replaced. It does not fix verb
//     agreement ("them" → a singular phrase).
//   - NounPhrase heuristics work on atom phrasings like the extractor's
//     ("User decided to use X over Y", "The X uses Y"); other phrasings may
//     yield no phrase, which means no replacement.
//   - PredictRules and ResumeRules only rephrase their input; they add no
//     knowledge. ResumeRules assumes atoms are ordered oldest first.
//   - Rerank accepts 0-based indices, and 1-based ones only when no 0
//     appears and the largest index equals the candidate count.
//   - InferUserState returns list values (technical.languages) as one
//     comma-separated string.
//   - The model can still write anything into a text field; scanning the
//     result is the caller's job.
package llm
