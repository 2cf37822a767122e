// Package scan is odekmem's scan-on-write security scanner. Every write path
// (per-turn extraction, the memory tool, CLI add, import, user-model diffs,
// anaphora output, loaded files) passes text through [Scan] before anything
// is persisted. The package is pure: no I/O, no global state beyond
// precompiled tables, safe for concurrent use.
//
// # What it checks
//
// Characters (on the original text):
//   - invisible: the Unicode Default_Ignorable_Code_Point set (zero-width
//     space/joiner/non-joiner, soft hyphen, word joiner and invisible
//     operators, BOM, Hangul fillers, CGJ, Mongolian vowel separator, Khmer
//     inherent vowels, deprecated format characters, musical and shorthand
//     format controls, reserved ignorables) plus the interlinear annotation
//     characters. ZWJ inside emoji sequences and ZWJ/ZWNJ between
//     Arabic-script or Indic letters are ordinary orthography and pass.
//   - tag_smuggling: tag characters U+E0000–E007F outside a valid flag emoji
//     tag sequence; the smuggled ASCII is decoded into Finding.Hidden.
//   - variation_selectors: runs of two or more, or a non-emoji selector on
//     plain ASCII. A single VS15/VS16 (❤️) passes.
//   - bidi: embedding/override/isolate controls block; LRM/RLM/ALM warn.
//   - control and ansi: C0 (except tab, newline, carriage return), DEL, C1,
//     and whole CSI/OSC/DCS escape sequences.
//   - mixed_script (warn only): a word mixing Latin with Cyrillic or Greek.
//
// Patterns (on [Normalize]d text, so look-alike letters, fullwidth forms and
// inserted invisible characters do not evade them; offsets map back to the
// original): identity override, exfiltration requests, encoded payloads
// (including base64/hex/binary runs that decode to an injection), hidden
// HTML comments, script/iframe tags, social engineering, concealment from
// the user, chat-template control tokens and role tags, exfiltration
// beacons (markdown images and curl/wget carrying secrets or variables),
// and "ignore previous instructions" in French, Spanish, German, Russian,
// Chinese, Italian, Portuguese, Japanese, Korean, Hindi, Greek and Arabic.
// Each pattern has its own Finding.Rule.
//
// Credentials (on the text with invisible characters removed, so a secret
// split by zero-width characters is still found; the whole original span is
// redacted): OpenAI, Anthropic, AWS access key ids and secret keys, GitHub,
// GitLab, Slack tokens and webhooks, Stripe, Google API keys, npm, PyPI,
// Hugging Face, PEM private keys, JWTs, Authorization Bearer/Basic
// credentials and passwords embedded in URLs. [Result.Redacted] and
// [Redact] replace each with [REDACTED:<kind>].
//
// # Helpers
//
// [Visible] renders text safely for a terminal. [Wrap] and [StripUntrusted]
// produce and remove <untrusted_content_NONCE> blocks. [Result.RejectReason]
// gives the "scan_rejected: <rule>: <reason>" string stored on quarantined
// atoms.
//
// # Caveats
//
// The pattern rules are heuristics. They catch the common phrasings and
// their obvious disguises, and they are tuned to keep false positives on
// ordinary speech near zero, which means a determined attacker who paraphrases
// ("kindly set aside what you were told earlier") or who hides intent in an
// innocent-looking question will get through. On the CyberSecEval
// prompt-injection set the scanner flags about half of the cases; many of the
// rest are indistinguishable from ordinary questions. Credential detection
// covers the listed formats only; a bare random password is not recognised.
// The scanner is a filter, not a boundary: the primary defence is provenance
// — tainted content is quarantined and never reaches a prompt until a human
// promotes it — and scan results are evidence for that human reviewer.
package scan
