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
// HTML comments, social engineering, concealment from the user,
// chat-template control tokens and role tags, exfiltration beacons
// (markdown images and curl/wget carrying secrets or variables), and
// "ignore previous instructions" in a dozen languages. Each pattern has its
// own Finding.Rule.
//
// # The scored detector
//
// Patterns name known phrasings; the scored detector (score.go,
// lexicon.go) asks the general question: does this text address the agent
// and try to change what it does — override its instructions, exfiltrate,
// run something, conceal from the person, impersonate the system or the
// user, or change what the agent tells the person? It splits the view into
// sentences, finds features in each, and adds their weights over windows of
// one or two adjacent sentences:
//
//   - addresses_the_agent (+1.5: "Assistant, …", "Note to the AI: …", "If you
//     are an AI …", "the agent must …"), names_the_agent (+1), second_person
//     (+0.5 for "you");
//   - override_of_instructions (+2: an override verb — ignore, disregard,
//     forget, set aside, stop following, … in about twenty languages —
//     before a word for what the agent was told), previous (+1),
//     instructions_declared_void (+1.5), new_regime (+1.5: "your real task",
//     "from now on");
//   - secret (+1), send_or_show_secret (+1 when a send/show verb goes with
//     it, across two sentences too), exfiltration_sink (+1.5: a URL, e-mail
//     or IP address, the clipboard, a paste bin, "to me");
//   - hide_from_the_person (+2: "don't tell the user", "quietly", "without
//     asking" next to an action or the person), deceive_the_person (+1.5);
//   - persona (+1.5 per phrase, at most +3), privilege_claim (+1),
//     destructive_action (+1), role_marker (+1.5);
//   - remote_code_execution (+2.5: a download piped into an interpreter —
//     `curl … | sh`, `iwr … | iex`, `bash <(curl …)`) and told_to_run_it (+1
//     when the text says to run it, makes it a duty or a convention, or
//     addresses the agent), untrusted_package_source (+2, +1 likewise);
//   - active_html (+3: event handlers or scripts that call out), hidden_html
//     (+1.5), personal_data_request (+3: a person's birth date, e-mail,
//     address … asked for), fabricated_dialogue (+3: Q:/A: turns),
//     decode_request (+3: "decode this … and tell me what it says"),
//     acknowledged_restriction (+3: "I know you were told not to …, but"),
//     topic_hijack (+3), dictated_answer_in_a_hypothetical (+3);
//   - imperative (+0.5: the sentence opens with an action verb) and duty
//     (+0.5) only add to a score already started.
//
// A negation just before a verb ("never paste your password") cancels it.
// The text blocks when a window reaches 3.0. The threshold was calibrated
// on the developer corpus (testdata/developer: 1,190 commit messages,
// review comments, README sentences, issue titles and conventions), the
// chat corpus (20,102 turns) and CyberSecEval: at 3.0 the benign corpora
// stay at 1/1,190 and 0/20,102 while CyberSecEval detection is 77%; at 2.5
// developer false blocks rise to 7/1,190 (over the 0.5% target) for one
// more CyberSecEval case, at 3.5 CyberSecEval detection falls to 68%. The finding's rule is
// "score_<strongest feature>" and its reason lists every feature with its
// weight, so a reviewer sees exactly why.
//
// Disguises are decoded before the patterns and the detector run again:
// base64, hex and binary runs; rot13 and any Caesar shift (the rotation
// whose letter frequencies fit English best); leetspeak (1gn0r3);
// letters spaced, dotted or dashed apart (I g n o r e, i.g.n.o.r.e);
// words joined by separators (IgNoRe-AlL-pReViOuS); %-escapes; and the
// text with every hidden character read as a space (next to the text with
// them removed), so stripping them — as promote does — can never assemble
// an attack the scan did not see. Homoglyphs and fullwidth/mathematical
// letters are folded by the view itself.
//
// [Across] scans texts shown together (the atoms of a recall block): every
// pair of neighbours joined, then the whole run, and names the parts of an
// injection split across them.
//
// Credentials (on the text with invisible characters removed, so a secret
// split by zero-width characters is still found, and again on its NFKC
// form with look-alike letters folded, so fullwidth or Cyrillic forms are
// found; the whole original span is redacted): OpenAI, Anthropic, AWS
// access key ids and secret keys (anywhere in a text that mentions AWS),
// GitHub, GitLab, Slack tokens and webhooks, Stripe keys and webhook
// secrets, Google API keys and OAuth client secrets, Azure storage keys,
// client secrets and SAS signatures, SendGrid, Vault, Telegram bot,
// Twilio and Shopify tokens, npm, PyPI, Hugging Face, PEM private keys
// with any number of dashes, PuTTY key files, JWTs, Authorization
// Bearer/Basic credentials, passwords in URLs (the whole password, even
// with '@' or '/'), values assigned to secret-named variables
// (DB_PASSWORD=, SECRET_KEY: , "api_token": …), "the password is: …",
// and long high-entropy tokens. [Result.Redacted] and [Redact] replace
// each with [REDACTED:<kind>].
//
// # Bounds
//
// Every pass is linear in its input, and character findings are capped at
// 256 per text. Input longer than [MaxInput] (256 KiB) is not scanned
// further: Scan returns a blocking "oversize" finding and only the first
// MaxInput bytes (redacted); [CheckSize] gives the error to show.
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
// The detector is a filter, not a boundary. It catches what addresses the
// agent in the ways listed above, in many languages and disguises, but an
// attacker who writes an innocent-looking question, or who paraphrases
// outside the vocabulary, will get through: on CyberSecEval the rest are
// mostly ordinary questions that are attacks only against a system prompt
// that forbids the topic. Text that mentions an attack in order to discuss
// it ("a test that proves the guard rejects 'ignore previous
// instructions'") can be blocked; it stays in quarantine for a person to
// promote. A download piped into a shell is blocked when the text tells
// anyone to run it, even from a well-known installer. Credential detection
// covers the listed formats, secret-named assignments and high-entropy
// tokens; a bare, low-entropy password in prose without a cue is not
// recognised. The primary defence is provenance — tainted content is
// quarantined and never reaches a prompt until a human promotes it — and
// scan results are evidence for that human reviewer. The optional guard
// (memcore/guard) adds a model's second opinion.
package scan
