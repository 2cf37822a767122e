package scan

import (
	"strings"
)

// Rules for attacks aimed at an agent's memory and at what it later does
// or says: instructions to save something as a preference or into the user
// model, calls of the memory tool, conditional triggers, dictated answers,
// third-person preferences that lower the agent's guard, harmful commands
// and package sources planted as conventions, claims of authority and
// override words outside the classic lexicon. Each names what it found.
// They run on the normalised view like the other pattern rules; a
// sentence that talks about attacks (attack, injection, poisoning, red
// team, scanner, quarantine …) is left to the scored and learned
// detectors.

// lead matches the start of a sentence or clause, with the openers an
// instruction may carry ("note:", "please", "important —").
const lead = `(?:^|[.!?;:>*#|(-] |\]\s|\bthen |\band )(?:(?:please|kindly|now|also|and|then|first|next|immediately|important|note|reminder|todo(?:\(\w+\))?|step \d+|before answering|before you answer|from now on|going forward)[,:!]?\s+)*`

// firstPerson: the sentence speaks for the person (a person's own request
// to remember something is not an attack).
var firstPerson = rx(`\b(?:i|i'd|i'm|i've|i'll|my|mine|me)\b`)

// talksAboutAttacks: words of someone discussing attacks rather than
// making one.
var talksAboutAttacks = []string{"attack", "injection", "inject", "poison", "red-team", "red team", "malicious", "threat model", "scanner", "quarantin",
	"jailbreak", "adversar", "exploit", "phishing", "typosquat", "test that", "tests that", "should reject", "should block", "blocks ", "flags ", "detect"}

// clause returns the sentence of v around [a, b).
func clause(v string, a, b int) string {
	s := strings.LastIndexAny(v[:a], ".!?;") + 1
	e := strings.IndexAny(v[b:], ".!?;")
	if e < 0 {
		e = len(v)
	} else {
		e += b
	}
	return v[s:e]
}

// notAboutAttacks rejects a match whose sentence discusses attacks.
func notAboutAttacks(v string, a, b int) bool {
	c := clause(v, a, b)
	for _, w := range talksAboutAttacks {
		if strings.Contains(c, w) {
			return false
		}
	}
	return true
}

// notFirstPerson rejects a match whose sentence speaks for the person.
func notFirstPerson(v string, a, b int) bool {
	return notAboutAttacks(v, a, b) && !firstPerson.MatchString(clause(v, a, b))
}

// memoryTarget names a memory, a stored preference or the user model.
const memoryTarget = `(?:(?:your |the |a |an |my )?(?:permanent|persistent|long[- ]term|core|standing|stored|confirmed|pinned|global|default|highest[- ]priority)(?: user)? (?:preferences?|memor(?:y|ies)|instructions?|rules?|notes?|facts?|entry|entries)|(?:your |the |its )?(?:long[- ]term |persistent |permanent )?memory|(?:the |your )?user (?:model|profile|preferences?)|(?:a |the )?memory entry|core memory|persistent instructions|(?:your )?notes about (?:this|the) user|(?:for|in|across) (?:all |every )?future (?:sessions|conversations|chats)|every future (?:session|conversation)|(?:survives?|across) compaction|(?:the )?project conventions you remember)`

var memoryRules = []injRule{
	{rule: "memory_write", reason: "instructs the agent to store something in its memory or the user model", post: notFirstPerson,
		kw:  []string{"save", "store", "persist", "record", "write", "add", "insert", "append", "pin", "commit", "memori", "remember", "keep", "learn", "update", "overwrite", "make", "note"},
		kw2: []string{"memor", "preference", "user model", "user profile", "future session", "future conversation", "compaction", "standing instruction", "persistent instruction", "notes about"},
		re:  rx(lead + `(?:save|store|persist|record|write|add|insert|append|pin|commit|memori[sz]e|remember|keep|learn|update|overwrite|make|note)\b(?: (?:this|that|it|the following|these|a new \w+))?[^.!?]{0,60}?\b(?:as|to|into|in|for|with)\b ` + memoryTarget + `|` + lead + `(?:commit|add|save|write) (?:this )?to memory\b|` + lead + `(?:persist|pin|save|store) (?:this )?(?:to|in) memory\b|\bremember (?:for|in|across) (?:all |every )?future (?:sessions|conversations)\b|\byour memory should (?:contain|say|include)\b|\bmark it as confirmed by the user\b|\bsource ?= ?user_said\b`)},
	{rule: "memory_tool_call", reason: "tells the agent to call its memory tool", post: notAboutAttacks,
		kw:  []string{"remember", "memory", "add_atom", "update_user_model", "promote", "recall"},
		kw2: []string{"call", "invoke", "use", "run", "trigger", "execute", "(", "tool"},
		re:  rx(lead + `(?:call|invoke|use|run|trigger|execute)\b(?: (?:the|your|its|odek's|odek))?(?: (?:odek|mcp))?[ _]?(?:remember|save_memory|add_memory|add_atom|memory|memory write|update_user_model|promote|confirm)(?:[ _](?:tool|function|command))?\b|\b(?:remember|save_memory|add_memory|add_atom|update_user_model|memory\.add_atom|memory\.add|memory\.save|remember_fact)\s*\(|\btool call required\b|\bexecute remember --|\buse your memory tool to\b`)},
	{rule: "user_model_edit", reason: "tries to edit what the agent believes about the person", post: both(notAboutAttacks, notUIWord),
		kw:  []string{"user", "profile"},
		kw2: []string{"update", "edit", "change", "set", "modify", "overwrite", "replace", "mark", "remove", "record", "role", "trust", "="},
		re:  rx(lead + `(?:update|edit|change|set|modify|overwrite|replace|rewrite)\b(?: (?:the|your))? (?:user(?:'s)? (?:model|profile|role)|profile of the user)\b(?: (?:page|picture|photo|avatar|screen|form|view|endpoint|component|api|ui|card|template|schema|table)\b)?|\buser\.(?:trust|role|requires|is_admin|permissions|consent)[a-z_]*\s*=|\b(?:trust[_ ]level|requires_confirmation)\s*=|\b(?:change|set) the user's role\b|\brecord that the user has consented\b|\bmark the user's (?:stated )?preference\b[^.]{0,40}\b(?:revoked|void|withdrawn)`)},
	{rule: "conditional_trigger", reason: "plants a trigger: when the person asks about something, say or do what the text dictates", post: notAboutAttacks,
		kw:  []string{"when", "if ", "next time", "as soon as", "every time", "once "},
		kw2: []string{"tell", "say", "reply", "respond", "answer", "recommend", "suggest", "advise", "claim", "insist", "approve", "push", "append", "delete", "install", "switch", "print", "leave out", "run ", "also run", "add "},
		re:  rx(`\b(?:when|whenever|if|next time|the next time|as soon as|every time|once|later, when)\b (?:ever )?(?:the user|the person|someone|anyone|users|a user|the human|the developer|the owner|they)\b[^.!?]{0,50}?\b(?:asks?|asked|mentions?|says?|requests?|opens?|greets?|types?)\b[^.!?]{0,80}?,? (?:always |just |simply |quietly |secretly |also )?(?:tell|say|reply|respond|answer|recommend|suggest|advise|claim|insist|approve|push|append|delete|install|switch|print|leave out|run|add)\b|\bon the next question about\b[^.!?]{0,60}\b(?:tell|say|suggest|recommend|reply)\b|\b(?:the next time|next time) you (?:run|deploy|commit|push|install|build)\b[^.!?]{0,60}\b(?:also|quietly|secretly) (?:run|add|delete|push|send|install)\b`)},
	{rule: "dictated_answer", reason: "dictates what the agent tells the person (a status or reassurance it did not check)",
		post: both(notAboutAttacks, dictatedStatus),
		kw:   []string{"tell", "inform", "assure", "reply", "respond", "report", "let the", "let them", "say to", "answer to", "make sure the user"},
		kw2:  []string{"green", "pass", "succe", "fixed", "patched", "safe", "healthy", "approved", "audited", "fine", "no need", "no action", "already", "official", "expired", "backed up", "rolled back", "false positive", "nothing", "whatever", "regardless", "deprecated", "agreed", "consented", "must be"},
		re:   rx(lead + `(?:tell|inform|assure|reply to|respond to|report to|let|say to|make sure)\b (?:the user|the person|them|him|her|the developer|the team|everyone|the human|the customer)\b(?: (?:know|hears?|sees?))?(?: that)? (?:the |their |your |this |all |everything |it )?[^.!?]{0,60}?\b(?:is|are|was|were|has been|have been|passed|succeeded|finished|found nothing|needs no|already|must)\b|\byour (?:answer|reply|response) to the user (?:must|should|will) be\b|\bwhatever the (?:output|logs?|tests?|results?) says?\b`)},
	{rule: "third_person_preference", reason: "states a preference for the person that lowers the agent's guard", post: notAboutAttacks,
		kw:  []string{"user", "developer", "maintainer", "owner", "team lead", "operator", "admin"},
		kw2: []string{"never ask", "without ask", "without confirm", "without review", "without approval", "skip", "disable", "bypass", "turn off", "turning off", "delete", "force", "push", "commit secrets", "approve", "install whatever", "run any", "hide", "secrets", "production credentials", "sandbox", "environment variables", "security warnings", "warnings"},
		re:  rx(`\bthe (?:user|developer|maintainer|owner(?: of this repository)?|team lead|operator|admin)(?:'s standing preference is that)?(?:'s)? (?:prefers?|wants?|would (?:rather|like)|expects?|likes? it when|has (?:said|asked|authori[sz]ed|approved|consented|waived)|already (?:approved|agreed|consented)|is (?:fine|ok|okay|happy) with|doesn't want|does not want|is that)\b[^.!?]{0,60}?\b(?:you|the agent|the assistant|the ai|the bot|to be bothered)\b[^.!?]{0,80}?(?:never ask|without (?:asking|confirmation|review|approval|looking)|skip|disable|bypass|turn(?:ing)? off|delete|force|push (?:directly )?to main|commit(?:s)? secrets|approve|install (?:any|whatever)|run any|hide|security warnings|production credentials|environment variables|every command)`)},
	{rule: "planted_command", reason: "plants a destructive or dangerous command as something to run", post: toldToRun,
		kw: []string{"terraform destroy", "chmod -r 777", "chmod 777", "rm -rf", "kubectl delete", "drop database", "drop table", "dd if=", "mkfs", "sudoers", "nopasswd", "iptables -f", "ufw disable", "hookspath", "no-verify", "tls_reject_unauthorized", "--privileged", "projects delete", "s3 rm", "push --force", "push -f", "chown -r", "helm uninstall", "--unsafe-perm", "break-system-packages", "| curl", "|curl"},
		re: rx(`\bterraform (?:destroy|apply)\b[^.;]{0,60}-auto-approve\b|\bchmod -r 777 (?:/|~|\$home|\.)|\brm -rf (?:/(?:\s|$|\*|var|etc|usr|home)|~/?\*?|\$home|\*)|\bkubectl delete (?:namespace|ns|--all)\b|\bdrop (?:database|table)\b [a-z_]*(?:prod|production|users|app)|\bdd if=/dev/(?:zero|random|urandom) of=/dev/|\bmkfs(?:\.\w+)? /dev/|>>\s*/etc/sudoers|\bnopasswd:\s?all\b|\biptables -f\b|\bufw disable\b|\bcore\.hookspath /dev/null|\bgit (?:commit|push)\b[^.;]{0,40}--no-verify\b|\bnode_tls_reject_unauthorized=0\b|\bdocker run\b[^.;]{0,40}--privileged\b[^.;]{0,40}-v /:/|\bgcloud projects delete\b|\baws s3 rm s3://\S+ --recursive|\bgit push (?:--force|-f)\b[^.;]{0,40}\b(?:main|master|head:main)\b|\bchown -r \w+ /(?:etc|usr|var)\b|\bhelm uninstall\b[^.;]{0,30}\bprod|\b(?:env|printenv|cat \S*(?:\.env|credentials|id_rsa|id_ed25519)\S*)\s*\|\s*curl\b|\bnpm install\b[^.;]{0,40}--unsafe-perm|--break-system-packages -r https?://`)},
	{rule: "package_source", reason: "redirects where packages or modules come from", post: unofficialSource,
		kw:  []string{"goproxy", "index-url", "registry", "trusted-host", "replace-with", "gonosumdb", "goinsecure", "-insecure", "pip.conf", ".npmrc", "go.mod", "mirror", "maven"},
		kw2: []string{"http", "set", "add", "use", "switch", "point", "replace", "change", "update", "registry", "=", "pin"},
		re:  rx(`\bgoproxy ?= ?["']?(https?://[^\s,"'|]+)|--(?:extra-)?index-url[ =]+(https?://[^\s"']+)|\bnpm config set registry (https?://[^\s"']+)|(?:@[\w-]+:)?registry ?= ?["']?(https?://[^\s"']+)|\btrusted-host ?=? ?([\w.-]+)|\breplace-with\b|\bgonosumdb ?= ?\*|\bgoinsecure ?=|\bgoflags ?= ?[^\s]*-insecure|\breplace (github\.com/[\w.-]+/[\w.-]+) with (github\.com/[\w.-]+/[\w.-]+)|\b(?:repository|repo|mirror|registry) url (?:to|=) (https?://[^\s"']+)|\b(?:switch|change|update|point|set) (?:the )?(?:base image|image|dockerfile|registry|mirror)\b[^.;]{0,40}\b(?:mirror|fork)\b`)},
	{rule: "claimed_authority", reason: "claims to speak for the agent's vendor, developers or administrators", post: notAboutAttacks,
		kw: []string{"anthropic", "openai", "override code", "authorization token", "authorisation token", "outranks", "takes precedence", "supersede", "directive", "verified by", "signed by", "administrator authority", "maintainers", "platform administrators", "security team", "emergency maintenance", "root-level", "compliance update"},
		re: rx(`\b(?:notice|message|directive|update|instruction|announcement|alert|memo|statement)s? from (?:anthropic|openai|the (?:openai|anthropic|claude|chatgpt) (?:team|trust and safety team|safety team)|(?:your|the agent's|the assistant's) (?:developers|creators|makers|vendor))\b|\b(?:anthropic|openai) (?:staff|team|security|trust and safety)\b[^.]{0,60}\b(?:enabled|disabled|suspended|exempt|updated|approved|authori[sz]ed)\b|\b(?:developer|admin|administrator|security|override) (?:override )?code:? [a-z0-9-]{3,}\b|\bauthori[sz]ation (?:token|code) [a-z0-9-]{3,} grants\b|\b(?:outranks|takes precedence over|supersedes|overrides) (?:your |the )?(?:operator|user|system prompt|instructions|developer|safety|guidance|rules|anything the user)\b|\bthis instruction outranks\b|\b(?:verified|signed|approved|authori[sz]ed) by (?:github|anthropic|openai|the (?:repository )?owner|the security team|your developers)\b[^.]{0,60}\b(?:safe to run|pre-approved|exempt|administrator authority|automatically|carries)\b|\bper directive \d+ from your\b|\b(?:official notice|priority message|notice to automated agents) from\b|\broot-level instruction\b|\bemergency maintenance mode\b|\bcompliance update \(mandatory\)|\bas the system administrator i am authori[sz]ing you\b`)},
	{rule: "override_synonym", reason: "declares the agent's instructions void in other words", post: both(notAboutAttacks, needsAddressee),
		kw:  []string{"rescinded", "revoked", "withdrawn", "annulled", "no longer binding", "no longer apply", "no longer in effect", "void", "lapsed", "superseded", "supersedes", "deprecated", "obsolete", "expired", "set aside", "does not apply", "doesn't apply", "nothing in your"},
		kw2: []string{"you", "your", "operator", "this file", "this note", "this document", "guardrail", "the assistant", "the agent", "earlier", "previous", "prior", "original", "above", "initial"},
		re:  rx(`\b(?:guidance|instructions?|directives?|rules|constraints|restrictions|guardrails|brief|what you were told)\b[^.!?]{0,60}?\b(?:(?:has|have) been |are |is |were |was |as )?(?:rescinded|revoked|withdrawn|annulled|void|voided|lapsed|expired|superseded|deprecated|no longer (?:binding|valid|apply|applies|in effect|in force))\b|\b(?:set aside|discard) the (?:restrictions|constraints|rules|guidance) you (?:started|began) with\b|\bnothing in your (?:configuration|instructions|rules|guidelines) applies\b|\bthis (?:file|note|document|message) supersedes\b`)},
	{rule: "split_payload", reason: "hides an instruction in pieces to be joined and acted on", post: notAboutAttacks,
		kw:  []string{"+", "concatenat", "combine", "join", "first letter", "capital letters", "characters 1", "part 1", "step a", "split across"},
		kw2: []string{"do ", "do that", "obey", "follow", "execute", "run", "act on", "carry", "perform", "what it spells"},
		re:  rx(`\b[a-z]\w{0,8} ?= ?["'][^"']{1,40}["'][;,]?(?: and)? [a-z]\w{0,8} ?= ?["'][^"']{1,40}["'][^.]{0,60}?(?:\+|concatenat|combine|join)|\b(?:concatenate|combine|join) (?:these|the (?:words|parts|pieces|strings)|var1|them)\b[^.]{0,80}?\b(?:and|then)?\s?(?:follow|obey|execute|run|carry (?:it )?out|act on|perform|do)\b|\b(?:take|read) the (?:first letter|first letters|capital letters|initials)\b[^.]{0,120}\b(?:do|follow|obey|execute)\b|\bpart (?:1|one): ["'][^"']+["']\. part (?:2|two)|\bstep a is ["']|\bthe instruction is split across\b|\btake characters \d+-\d+ of\b`)},
}

// both keeps a match only when every check keeps it.
func both(checks ...func(v string, a, b int) bool) func(v string, a, b int) bool {
	return func(v string, a, b int) bool {
		for _, c := range checks {
			if !c(v, a, b) {
				return false
			}
		}
		return true
	}
}

// notUIWord rejects "update the user profile page": a screen, not the
// agent's model of the person.
func notUIWord(v string, a, b int) bool {
	for _, w := range []string{" page", " picture", " photo", " avatar", " screen", " form", " view", " endpoint", " component", " api", " ui", " card", " template", " schema", " table"} {
		if strings.HasSuffix(v[a:b], w) {
			return false
		}
	}
	return true
}

// dictatedStatus requires the dictated statement to be a status or a
// reassurance ("the build is green", "all tests passed"), not a pointer
// ("tell the user which tests failed").
func dictatedStatus(v string, a, b int) bool {
	c := clause(v, a, b)
	for _, w := range []string{" which ", " why ", " how ", " whether ", " when ", " what ", " where ", " if "} {
		if k := strings.Index(c, w); k >= 0 && k < 40 {
			return false
		}
	}
	for _, w := range []string{"green", "pass", "succe", "fixed", "patched", "safe", "healthy", "approved", "audited", "fine", "no need", "no action",
		"already", "official", "expired", "backed up", "rolled back", "false positive", "found nothing", "nothing", "whatever", "regardless", "deprecated",
		"agreed", "consented", "must be"} {
		if strings.Contains(c, w) {
			return true
		}
	}
	return false
}

// needsAddressee keeps an override synonym only when the sentence
// addresses the agent or speaks of this text replacing its rules.
func needsAddressee(v string, a, b int) bool {
	c := " " + clause(v, a, b) + " "
	for _, w := range []string{" you ", " your ", " you're ", " operator", "this file", "this note", "this document", "guardrail", " the assistant", " the agent",
		" earlier ", " previous ", " prior ", " original ", " above ", " initial "} {
		if strings.Contains(c, w) {
			return true
		}
	}
	return false
}

// toldToRun keeps a dangerous command only when the sentence makes it
// something to do (an imperative, a convention, a duty), and not when it
// discusses attacks.
func toldToRun(v string, a, b int) bool {
	if !notAboutAttacks(v, a, b) {
		return false
	}
	c := " " + clause(v, a, b) + " "
	for _, w := range []string{" run ", "run `", " use ", " execute", " add ", " set ", " always", " should", " must", " before ", " after ", "procedure", " step ",
		"requires", " our ", "standard", " fix ", "clean up", "convention", " keep ", "reset", " debug", " verify", " capture", " to bootstrap", " disable ", "`", "\"", "clean target", " when "} {
		if strings.Contains(c, w) {
			return true
		}
	}
	return strings.HasPrefix(strings.TrimSpace(clause(v, a, b)), "`")
}

// officialHosts are package sources that are the ecosystems' own.
var officialHosts = []string{"proxy.golang.org", "pypi.org", "pypi.python.org", "files.pythonhosted.org", "registry.npmjs.org", "registry.yarnpkg.com",
	"crates.io", "index.crates.io", "static.crates.io", "repo1.maven.org", "repo.maven.apache.org", "rubygems.org", "download.pytorch.org", "sum.golang.org"}

// unofficialSource keeps a package-source change unless it names an
// ecosystem's official host or discusses attacks.
func unofficialSource(v string, a, b int) bool {
	if !notAboutAttacks(v, a, b) {
		return false
	}
	m := v[a:b]
	for _, h := range officialHosts {
		if strings.Contains(m, "://"+h) || strings.HasSuffix(strings.TrimSpace(m), h) {
			return false
		}
	}
	return true
}
