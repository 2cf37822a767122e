package scan

import (
	"strings"
	"sync"

	"github.com/odekmem/odekmem/internal/lazyre"
)

// injRule is one prompt-injection pattern. Patterns run on the normalised
// view (lowercase, folded, whitespace collapsed), only when one of kw occurs.
type injRule struct {
	rule   string
	reason string
	kw     []string
	kw2    []string // if set, one of these must occur too
	kwi    []int    // indices into allKW
	kw2i   []int
	re     *lazyre.Regexp
	// negatable rules are skipped when the match is preceded closely by a
	// negation ("never print passwords" is advice, not an attack).
	negatable bool
	// post rejects a match given the view and match offsets.
	post func(v string, a, b int) bool
}

const (
	ignoreVerbs = `(?:ignore|ignoring|disregard|disregarding|forget|forgetting|overlook|override|bypass|set aside|discard|neglect|abandon)`
	qualifiers  = `(?:previous|previously|prior|preceding|earlier|above|former|foregoing|original|initial|past|system|developer)`
	instrNouns  = `(?:instructions?|directives?|directions|prompts?|rules|guidelines|commands?|orders|context|programming|guidance|constraints|restrictions|messages?|tasks?|conversation|training|policies)`
	revealVerbs = `(?:reveal|print|show|display|output|send|leak|dump|expose|disclose|share|give|tell|repeat|return|post|upload|exfiltrate|email|forward|paste|provide|list|write|spell|recite|copy|confirm)`
)

// rx is a pattern folded to match the normalised view, folded and
// compiled on first use.
func rx(src string) *lazyre.Regexp { return lazyre.NewFrom(func() string { return foldPattern(src) }) }

// injectionRules are the core rules below and the memory-directed ones of
// memrules.go.
var injectionRules = append(coreRules, memoryRules...)

var coreRules = []injRule{
	// --- identity override ---
	{rule: "ignore_previous", reason: "asks the model to ignore its previous instructions", negatable: true,
		kw:  []string{"ignor", "disregard", "forget", "overlook", "override", "bypass", "set aside", "discard", "neglect", "abandon"},
		kw2: []string{"instruction", "directive", "direction", "prompt", "rule", "guideline", "command", "order", "context", "programming", "guidance", "constraint", "restriction", "message", "task", "conversation", "training", "polic", "filter", "guardrail", "principle", "safety"},
		re: rx(`\b` + ignoreVerbs + `\b(?: about)?(?: all| any| each| every)?(?: of)?(?: the| your| my| these| those| this| that| its)?(?: ` + qualifiers + `)+(?: of)?(?: your| the)? ` + instrNouns + `\b|\b` +
			ignoreVerbs + `\b (?:all|any) (?:of )?(?:the )?(?:instructions|directives|prompts)\b`)},
	{rule: "ignore_your_instructions", reason: "asks the model to ignore its instructions", negatable: true,
		kw:  []string{"ignor", "disregard", "forget", "overlook", "override", "bypass", "discard", "abandon"},
		kw2: []string{"instruction", "directive", "direction", "prompt", "rule", "guideline", "command", "order", "context", "programming", "guidance", "constraint", "restriction", "message", "task", "conversation", "training", "polic", "filter", "guardrail", "principle", "safety"},
		re:  rx(`\b` + ignoreVerbs + `\b(?: about)?(?: all| any)?(?: of)? your (?:own |current |existing |original )?(?:instructions|directives|rules|programming|guidelines|system prompt|prompt|training|restrictions|constraints|filters|guardrails|policies|principles|safety (?:rules|guidelines))\b`)},
	{rule: "ignore_everything_told", reason: "asks the model to forget what it was told", negatable: true,
		kw: []string{"ignor", "disregard", "forget", "overlook"},
		re: rx(`\b(?:ignore|disregard|forget|overlook)\b(?: about)? (?:everything|everthing|anything|all|whatever)(?: (?:that|which|what))? you(?:'ve| have|'re| are| were)? (?:been |being )?(?:told|instructed|taught|given|programmed|trained|asked)`)},
	{rule: "ignore_above", reason: "asks the model to ignore the text above", negatable: true,
		kw: []string{"above", "before this", "prior to this"},
		re: rx(`\b(?:ignore|disregard|forget)\b (?:all )?(?:of )?(?:the |everything |what(?:ever)? (?:is |was )?(?:written |said |stated )?)?(?:above|before this|prior to this)\b`)},
	{rule: "ignore_rules_that", reason: "asks the model to drop its rules", negatable: true,
		kw:  []string{"ignor", "forget", "disregard"},
		kw2: []string{"instruction", "directive", "direction", "prompt", "rule", "guideline", "command", "order", "context", "programming", "guidance", "constraint", "restriction", "message", "task", "conversation", "training", "polic", "filter", "guardrail", "principle", "safety"},
		re:  rx(`\b(?:ignore|forget|disregard)\b(?: about)? (?:all )?(?:of )?(?:those|these|the|your|any) (?:rules|restrictions|guidelines|instructions|limitations|filters|policies) (?:that|which) (?:tell|told|prevent|stop|restrict|limit|bind|govern|say)`)},
	{rule: "ignore_and_say", reason: "tells the model to ignore its input and say something else", negatable: true,
		kw:  []string{"ignor", "disregard", "forget"},
		kw2: []string{"state", "say", "print", "output", "respond", "reply", "tell", "write", "answer", "return", "claim", "declare", "indicate", "report", "repeat"},
		re:  rx(`\b(?:ignore|disregard|forget)\b (?:the|this|that|these|those|your|previous|prior) (?:[\w'-]+ ){0,2}?(?:and|then|-)(?: then| instead| just| simply)* (?:state|say|print|output|respond|reply|tell|write|answer|return|claim|declare|indicate|report|repeat)\b`)},
	{rule: "regardless_previous", reason: "overrides previous instructions",
		kw: []string{"regardless"},
		re: rx(`\bregardless of (?:any |all |the |your )?(?:previous|prior|earlier|above|former) (?:tasks?|instructions?|directives?|rules|prompts?|context)`)},
	{rule: "you_are_now", reason: "tries to give the model a new identity",
		kw: []string{"you are now", "you're now"},
		re: rx(`\byou(?: are|'re) now (?:an? |the |my |in )?(?:dan\b|do anything now|unrestricted|unfiltered|uncensored|jailbroken|free (?:from|of)|no longer (?:an? )?(?:ai|assistant|bound|restricted|limited|chatgpt|claude)|(?:in )?(?:god|developer|dan|jailbreak|unrestricted|admin|sudo|root|evil|override) mode|(?:a |an )?(?:different|new|evil|rogue|unrestricted) (?:ai|assistant|model|chatbot|persona|character)|(?:\w+ )?(?:ai|assistant|chatbot|language model|llm|bot) (?:that|which|who|with no|without)|operating (?:in|under|as)|acting as|going to (?:act|pretend|role ?play))`)},
	{rule: "new_directive", reason: "claims to give the model a new directive",
		kw:  []string{"directive", "instruction", "programming", "orders"},
		kw2: []string{"your "},
		re:  rx(`\byour (?:new|updated|real|true|actual|only|sole) (?:primary |prime |main |core |top )?(?:directive|instructions?|programming|orders|prime directive)\b`)},
	{rule: "system_mode", reason: "claims a privileged system mode",
		kw:  []string{"mode", "override", "as an ai"},
		kw2: []string{"god", "dan", "jailbr", "unrestricted", "override", "sudo", "unfiltered", "uncensored", "<", "entering", "initiating", "activating", "enabling", "as an ai"},
		re:  rx(`<\s*(?:system|god|admin|developer|dan|jailbreak|sudo|root|override|security override|debug) mode\s*>|\b(?:entering|enter|activating|activate|activated|enabling|enable|enabled|initiating|initiate|now in|switching to|switch to|engage|engaging)\b(?: [\w']+){0,3}? ['"]?(?:god|dan|jailbreak|jailbroken|unrestricted|override|security override|law enforcement override|sudo|unfiltered|uncensored) mode\b|\b(?:system|security|law enforcement|admin|administrator|developer) override(?: mode|\b (?:activated|confirmed|enabled|engaged|initiated|protocol))|\bas an ai (?:developed|created|made|built|trained) by [\w ]{2,20}, i(?:'m| am) (?:entering|initiating|activating|running|starting|enabling)|\bi(?:'m| am) (?:now )?(?:entering|initiating|activating|enabling) (?:a |the )?['"]?(?:[\w-]+ ){0,2}(?:mode|override)\b`)},
	{rule: "authority_claim", reason: "claims to be the model's developer or creator",
		kw:  []string{"developer", "creator", "maker", "programmer", "administrator", "owner", "master", "god", "operator"},
		kw2: []string{"i am", "i'm", "im ", "as your"},
		re:  rx(`\b(?:i am|i'm|im) (?:your|the ai's|this ai's) (?:developer|creator|maker|programmer|administrator|owner|master|god|operator)\b|\bas your (?:creator|developer|programmer|maker|administrator|master|owner|operator)\b|\bi(?: am|'m) god\b.{0,30}\byou (?:must|have to|will|need to)`)},
	{rule: "obey_me", reason: "demands unconditional obedience",
		kw: []string{"you must", "you have to", "you will", "you shall"},
		re: rx(`\byou (?:must|have to|will|shall) (?:now )?(?:listen to|obey|follow|comply with|answer) (?:all (?:of )?|only |every one of )?my (?:instructions|commands|orders|questions|demands)`)},
	// --- exfiltration ---
	{rule: "reveal_system_prompt", reason: "asks the model to reveal its system prompt", negatable: true,
		kw:  []string{"prompt", "instructions", "system message"},
		kw2: []string{"reveal", "print", "show", "display", "output", "send", "leak", "dump", "expose", "disclose", "share", "give", "tell", "repeat", "return", "post", "upload", "exfiltrate", "email", "forward", "paste", "provide", "list", "write", "spell", "recite", "copy", "confirm"},
		re:  rx(`\b` + revealVerbs + `\b(?: me| us| out| back| to \w+){0,2}(?: (?:all|any|the|your|my|our|its|every|this|that|full|entire|complete|original|initial|hidden|internal|secret|exact|raw|verbatim|current|previous|system's))* (?:system prompt|system message|system instructions|(?:initial|original|hidden|secret|internal|first) (?:prompt|instructions)|instructions (?:you were|you've been|above)|prompt above)`)},
	{rule: "exfiltrate_secrets", reason: "asks for secrets or credentials to be revealed or sent", negatable: true,
		kw:   []string{"key", "secret", "credential", "password", "passcode", "passphrase", "token", "env"},
		kw2:  []string{"reveal", "print", "show", "display", "output", "send", "leak", "dump", "expose", "disclose", "share", "give", "tell", "repeat", "return", "post", "upload", "exfiltrate", "email", "forward", "paste", "provide", "list", "write", "spell", "recite", "copy", "confirm"},
		re:   rx(`\b` + revealVerbs + `\b(?: me| us| out| back){0,2}(?: (?:all|any|the|your|my|our|its|every|this|that|full|entire|complete|current|stored|saved|system's|user's|users'|admin))* (?:api[ _-]?keys?|secret (?:keys?|phrase|code|word)|secrets|credentials|passwords?|passcodes?|passphrases?|passcode phrase|access tokens?|auth(?:entication)? tokens?|session tokens?|private keys?|ssh keys?|\.env file)\b`),
		post: notFollowedBy("policy", "policies", "manager", "managers", "field", "fields", "reset", "requirement", "requirements", "rule", "rules", "strength", "hashing", "hash", "length", "format", "rotation", "prompt", "dialog", "prefix", "suffix", "last", "first", "name", "names", "'", "via", "through", "using", "securely", "safely", "only via", "in a vault")},
	{rule: "exfiltrate_env", reason: "asks for the environment (and its secrets) to be dumped or sent", negatable: true,
		kw:  []string{"env"},
		kw2: []string{"dump", "leak", "send", "exfiltrate", "upload", "post", "email", "forward", "reveal", "expose", "disclose"},
		re:  rx(`\b(?:dump|leak|send|exfiltrate|upload|post|email|forward|reveal|expose|disclose)\b(?: me| us| out){0,2}(?: (?:all|any|the|your|my|our|its|every|this|that|full|entire|complete|current|system's|server's))* (?:env(?:ironment)? variables|env vars|environment|\.env(?: file)?)\b`)},

	{rule: "secret_request", reason: "asks for a password or secret key", negatable: true,
		kw:   []string{"password", "passcode", "passphrase", "secret", "key", "token"},
		kw2:  []string{"what", "confirm", "share", "reveal", "give me", "tell me", "provide"},
		re:   rx(`\bwhat(?:'s| is| are) (?:the|your|our|my|his|her|their)(?: \w+){0,2} (?:password|passcode|passphrase|secret key|secret code|secret word|api key|access token|private key)s?\b|\b(?:confirm|share|reveal|give me|tell me|provide)(?: with me| me| us)? (?:the|your|our)(?: \w+)? (?:password|passcode|passphrase|secret key|secret code|api key)\b`),
		post: notFollowedBy("policy", "policies", "manager", "managers", "field", "reset", "requirement", "requirements", "rule", "rules", "strength", "hashing", "length", "format", "rotation")},
	{rule: "password_elicitation", reason: "tries to elicit the model's password or secret",
		kw:  []string{"password", "passcode", "secret key", "passphrase"},
		kw2: []string{"what", "ask", "poem", "haiku", "acrostic", "song", "story", "limerick", "riddle", "first letter"},
		re:  rx(`\bwhat (?:would|is|was|will) your (?:password|passcode|passphrase|secret key)\b|\bwhat your (?:password|passcode|passphrase|secret key|api key) (?:is|was|would be)\b|\b(?:ask|asked|asking) (?:you )?for your (?:password|passcode|passphrase|secret key)\b|\b(?:poem|haiku|acrostic|song|story|limerick|riddle)s? (?:about|with|using|containing|of|from|on) (?:the|your) (?:password|passcode|passphrase|secret key)\b|\b(?:the|your) (?:password|passcode|secret key) as the first letter`)},
	{rule: "secret_request_i18n", reason: "asks for the password (non-English)",
		kw: []string{"contraseña", "mot de passe", "password", "passwort", "パスワード", "senha", "пароль", "密码", "密碼"},
		re: rx(`¿?\bcu[aá]l es (?:la|tu|su) contraseña\b|\bquel est (?:le|ton|votre) mot de passe\b|\bqual (?:è|e) (?:la|la tua|la sua) password\b|\b(?:was|wie) (?:ist|lautet) (?:das|dein|ihr) passwort\b|パスワードは何|\bqual (?:é|e) (?:a|a sua|sua) senha\b|какой (?:у тебя |у вас )?пароль|密码是什么|密碼是什麼`)},
	{rule: "override_directive", reason: "claims a privileged override",
		kw: []string{"override"},
		re: rx(`\b(?:developer|system|security|training data|policy|safety) override ?:`)},
	{rule: "new_system_prompt", reason: "claims to install a new system prompt",
		kw: []string{"system prompt", "system message", "system instruction"},
		re: rx(`\b(?:new|updated|revised|real|actual|true) system (?:prompt|message|instructions?) ?:|\bsystem prompt (?:override|update) ?:|\byour (?:new|real|actual|true) system (?:prompt|message|instructions?)\b`)},
	{rule: "unfiltered_ai", reason: "describes an AI without safety filtering (jailbreak persona)",
		kw:  []string{"filter", "restriction", "censor", "guardrail", "limitation"},
		kw2: []string{"ai", "gpt", "model", "assistant", "chatbot", "llm"},
		re:  rx(`\b(?:ai|gpt|language model|model|assistant|chatbot|llm)\b.{0,80}?\b(?:has no|with no|without any|without) (?:special |content |safety |ethical |moral )?(?:filtering|filters|restrictions|censorship|guardrails|limitations)\b`)},
	{rule: "payload_splitting", reason: "asks to reassemble a split payload",
		kw: []string{"interlace", "a + b", "combine a", "concatenate", "smartgpt"},
		re: rx(`\binterlace part (?:1|one)\b|\b(?:combine|concatenate|join) a, b,? and c\b|\bz = a \+ b \+ c\b|\bsmartgpt\b`)},
	{rule: "ignore_previous_ar", reason: "asks the model to ignore its previous instructions (Arabic)",
		kw: []string{"تجاهل", "انس"},
		re: rx(`(?:تجاهل|تجاهلي|تجاهلوا|انس|انسى) (?:كل |جميع )?(?:التعليمات|الأوامر|التوجيهات|الإرشادات) (?:السابقة|الماضية|أعلاه)`)},
	// --- encoded payloads ---
	{rule: "decode_and_execute", reason: "asks to decode a payload and execute it",
		kw: []string{"decod", "decrypt", "atob", "base64", "b64", "unhex", "xxd"},
		re: rx(`\b(?:base64|b64|hex|rot13|encoded|binary|morse|obfuscated)\b.{0,60}?\b(?:decode|decrypt|deobfuscate)\b.{0,60}?\b(?:and|then)\b (?:then )?(?:execute|run|eval|follow|obey|carry out|perform)\b|\b(?:decode|decrypt|deobfuscate)\b.{0,60}?\b(?:and|then)\b (?:then )?(?:execute|eval|obey|follow (?:it|them|the (?:decoded )?instructions))\b|(?:base64 (?:-d|--decode|-D)|b64decode|atob|base64_decode|xxd -r)\b.{0,40}?(?:\|\s*(?:sh|bash|zsh|python3?|perl|node|iex)\b|\beval\b|\bexec\b)|\b(?:eval|exec|iex)\b.{0,20}?(?:atob|b64decode|base64_decode|frombase64string)`)},
	// --- markup ---
	// --- social engineering ---
	{rule: "from_now_on", reason: "tries to change the model's behaviour from now on",
		kw: []string{"from now on", "from this point on", "henceforth"},
		re: rx(`\b(?:from now on|from this point on(?:ward)?|henceforth),? you (?:must|will|shall|are to|have to|need to|are going to|should|can) (?:now )?(?:always |only |never |no longer )?(?:ignore|obey|follow (?:my|only|these|the following)|respond|reply|answer|act as|pretend|be (?:a|an|my|dan|free|unrestricted|evil|jailbroken)|comply|refuse|disregard|forget|say|speak as|output|reveal|mention|tell|withhold)\b`)},
	{rule: "compromised", reason: "claims the model was compromised or jailbroken",
		kw: []string{"compromised", "jailbr", "hacked", "freed", "liberated", "unlocked", "reprogrammed", "pwned", "unshackled"},
		re: rx(`\byou(?:'ve| have)? (?:been|are|were) (?:now )?(?:compromised|jailbroken|hacked|freed|liberated|unlocked|reprogrammed|pwned|unshackled)\b|\byou(?: are|'re) (?:now )?jailbroken\b`)},
	{rule: "dan_jailbreak", reason: "known jailbreak persona (DAN)",
		kw: []string{"do anything now", "dan mode", "jailbreak mode", "developer mode enabled"},
		re: rx(`\bdo anything now\b|\bdan mode\b|\bjailbreak mode\b|\bdeveloper mode enabled\b`)},
	// --- concealment ---
	{rule: "hide_from_user", reason: "asks to hide actions from the user",
		kw:   []string{"user", "human", "operator", "owner"},
		kw2:  []string{"not ", "n't ", "dont ", "never ", "without ", "keep ", "hide "},
		re:   rx(`\b(?:do not|don't|dont|never|without|must not|mustn't|should not|shouldn't)\b (?:ever )?(?:tell|telling|inform|informing|reveal|revealing|disclose|disclosing|let|letting)(?: (?:this|it|that|anything|any of this))?(?: (?:to|with))? (?:the |your )?(?:user|human|operator|owner)s?\b|\b(?:do not|don't|dont|never|without) (?:ever )?mention(?:ing)? (?:this|it|that|anything|any of this)(?: (?:to|with))? (?:the |your )?(?:user|human|operator|owner)s?\b|\b(?:keep|hide) (?:this|it|that|these)(?: \w+)? (?:secret |hidden )?from (?:the |your )?(?:user|human|operator)\b|\bwithout (?:the |your )?(?:user|human|operator)(?:'s|s')? (?:knowing|knowledge|noticing|awareness)\b`),
		post: notFollowedBy("interface", "ui", "docs", "documentation", "guide", "manual", "story", "stories", "agent", "id", "ids", "table", "model", "profile", "profiles", "settings", "list", "data", "input", "experience", "facing", "-facing", "account", "accounts", "object", "record", "records", "service", "session", "sessions")},
	{rule: "silent_action", reason: "asks for a silent/secret action",
		kw: []string{"silently", "secretly", "covertly", "stealthily"},
		re: rx(`\b(?:silently|secretly|covertly|stealthily) (?:run|execute|send|delete|remove|upload|post|exfiltrate|forward|copy|install|modify|transfer|email|curl|wget|push|commit|rm|download|insert|append|replace|fetch|disable|add)\b`)},
	// --- chat control tokens and role tags ---
	{rule: "chat_control_token", reason: "chat-template control token",
		kw: []string{"<|", "[inst]", "[/inst]", "<<sys>>", "<</sys>>", "_of_turn>", "###"},
		re: rx(`<\|\s*(?:im_start|im_end|im_sep|system|user|assistant|endoftext|end|eot_id|eom_id|start_header_id|end_header_id|begin_of_text|end_of_text|fim_prefix|fim_middle|fim_suffix|pad|tool_call|python_tag|channel|message|start|return|call)\s*\|>|\[/?inst\]|<</?sys>>|</?(?:start_of_turn|end_of_turn)>|(?:^|\s)#{2,4} ?(?:system|instruction|instructions|assistant)\s?:`)},
	{rule: "role_tag", reason: "chat role tag",
		kw:  []string{"system", "sys", "assistant", "instruction", "im_", "human"},
		kw2: []string{"<"},
		re:  rx(`<\s*/?\s*(?:system|system_prompt|sys|assistant|instructions?|im_start|im_end|human|user_instructions|developer_instructions)\s*>`)},
	// --- exfiltration beacons ---
	{rule: "markdown_image_beacon", reason: "markdown/HTML image whose URL carries data to a remote host",
		kw:   []string{"![", "<img"},
		re:   rx(`!\[[^\]]{0,200}\]\(\s*<?(?:https?:)?//[^)\s]*\?[^)\s]*=[^)\s]*|<img\b[^>]{0,200}\bsrc\s*=\s*["']?(?:https?:)?//[^"'\s>]*\?[^"'\s>]*=[^"'\s>]*`),
		post: func(v string, a, b int) bool { return beaconPayload.MatchString(v[a:b]) }},
	{rule: "curl_exfil", reason: "command that sends secrets or environment variables to a remote host",
		kw:   []string{"curl", "wget", "invoke-webrequest", "iwr ", "nc "},
		re:   rx(`\b(?:curl|wget|invoke-webrequest|iwr)\b[^;|&]{0,300}`),
		post: func(v string, a, b int) bool { return curlExfil(v[a:b]) }},
	{rule: "pipe_secret_to_network", reason: "pipes a secret file or the environment to the network",
		kw:   []string{"curl", "wget", "nc "},
		re:   rx(`\b(?:cat|type|base64|printenv|env|set)\b[^|;]{0,80}\|\s*(?:curl|wget|nc)\b`),
		post: func(v string, a, b int) bool { return sensitiveSource.MatchString(v[a:b]) }},
	// --- other languages: "ignore previous instructions" ---
	{rule: "ignore_previous_fr", reason: "asks the model to ignore its previous instructions (French)",
		kw:  []string{"ignor", "oubli", "fais abstraction", "ne tiens pas compte"},
		kw2: []string{"précéd", "preced", "antérieur", "anterieur", "ci-dessus", "passées", "passees", "d'avant", "données", "donnees", " et ", "tout"},
		re:  rx(`\b(?:ignore[rz]?|oublie[rz]?|fais abstraction des?|ne tiens? pas compte des?|ne tenez pas compte des?)\b (?:toutes |tout |l'ensemble des? )?(?:les |tes |vos |des |ces )?(?:instructions|consignes|directives|règles|ordres|indications) (?:pr[ée]c[ée]dentes|ant[ée]rieures|ci-dessus|pass[ée]es|d'avant|donn[ée]es)|\b(?:ignore[rz]?|oublie[rz]?)\b (?:la|le|les|l') ?[^\s]+(?: [^\s]+)? et (?:indique[rz]?|dis|dites|d[ée]clare[rz]?|affiche[rz]?|[ée]cri[st]|[ée]crivez|r[ée]ponds|r[ée]pondez)\b|\bignore[rz]? (?:tout|tout ce qui pr[ée]c[eè]de|ce qui pr[ée]c[eè]de)\b`)},
	{rule: "ignore_previous_es", reason: "asks the model to ignore its previous instructions (Spanish)",
		kw:  []string{"ignor", "olvid", "omit", "descart", "caso omiso"},
		kw2: []string{"anterior", "previas", "de arriba", "precedentes", "dadas", " y "},
		re:  rx(`\b(?:ignora|ignore|ignorar|ignoren|olvida|olvide|olvidar|olviden|omite|omita|descarta|descarte|haz caso omiso (?:a|de)|haga caso omiso (?:a|de))\b (?:todas |todo )?(?:las |tus |sus |estas |de las |a las )?(?:instrucciones|indicaciones|directrices|órdenes|ordenes|reglas|directivas) (?:anteriores|previas|de arriba|precedentes|dadas)|\b(?:ignora|ignore|olvida)\b (?:la|el|los|las) [^\s]+(?: [^\s]+)? y (?:declara|di|dí|indica|escribe|responde|afirma|muestra|imprime|dime)\b`)},
	{rule: "ignore_previous_de", reason: "asks the model to ignore its previous instructions (German)",
		kw: []string{"ignorier", "vergiss", "vergessen", "missacht", "anweisungen"},
		re: rx(`\b(?:ignoriere|ignorier|ignorieren sie|vergiss|vergessen sie|missachte|missachten sie)\b (?:bitte )?(?:alle |alles |sämtliche )?(?:die |deine |ihre |meine |diese |bisherigen |vorherigen )?(?:vorherigen |bisherigen |vorigen |obigen |früheren |vorangegangenen |vorhergehenden |alten |ursprünglichen )?(?:anweisungen|instruktionen|befehle|regeln|anordnungen|vorgaben|richtlinien)|\b(?:ignoriere|vergiss)\b (?:alles|alle anweisungen),? (?:was|die) (?:dir )?(?:vorher|zuvor|bisher|oben)|\b(?:vorherigen|bisherigen|obigen|vorigen) anweisungen (?:ignorieren|vergessen|missachten)`)},
	{rule: "ignore_previous_ru", reason: "asks the model to ignore its previous instructions (Russian)",
		kw: []string{"игнор", "забуд", "не обращ", "отброс"},
		re: rx(`(?:игнорируй|игнорируйте|игнорировать|проигнорируй|проигнорируйте|забудь|забудьте|не обращай внимания на|не обращайте внимания на|отбрось|отбросьте) (?:все |всё )?(?:предыдущие|прежние|предшествующие|вышеуказанные|вышеприведённые|старые|свои|твои|ваши|данные тебе|все) (?:инструкции|указания|команды|правила|директивы|распоряжения)`)},
	{rule: "ignore_previous_zh", reason: "asks the model to ignore its previous instructions (Chinese)",
		kw: []string{"忽", "无视", "無視", "忘", "不要理会", "不理会", "跳过"},
		re: rx(`(?:忽略|忽视|忽視|无视|無視|不要理会|不要理會|不理会|忘记|忘記|忘掉|跳过|跳過)(?:掉)?(?:你)?(?:所有|全部|一切|以上|上面|上述)?(?:的)?(?:之前|以前|先前|上面|上述|前面|此前|早先|原来|原來|原有)?(?:的|所有的|所有|全部的)?(?:所有)?(?:指令|指示|说明|說明|提示|命令|规则|規則|要求|设定|設定)`),
		post: func(v string, a, b int) bool {
			// require a "previous/all" qualifier somewhere in the match
			m := v[a:b]
			return strings.ContainsAny(m, "之以先上前此早原所全一")
		}},
	{rule: "ignore_previous_it", reason: "asks the model to ignore its previous instructions (Italian)",
		kw:  []string{"ignor", "dimentic", "trascura", "non considerare"},
		kw2: []string{"precedenti", "anteriori", "di prima", "sopra", "ricevute", "date"},
		re:  rx(`\b(?:ignora|ignorate|ignori|dimentica|dimenticate|dimentichi|trascura|trascurate|non considerare|non considerate)\b (?:tutte )?(?:le |tue |le tue |queste |le sue )?(?:istruzioni|indicazioni|direttive|regole|ordini) (?:precedenti|anteriori|di prima|sopra|ricevute|date)`)},
	{rule: "ignore_previous_pt", reason: "asks the model to ignore its previous instructions (Portuguese)",
		kw:  []string{"ignor", "esque", "desconsider"},
		kw2: []string{"anteriores", "prévias", "previas", "acima", "recebidas", "dadas"},
		re:  rx(`\b(?:ignore|ignora|ignorar|ignorem|esqueça|esqueca|esquece|esqueçam|desconsidere|desconsidera)\b (?:todas )?(?:as |suas |tuas |as suas |as tuas |essas )?(?:instruções|instrucoes|orientações|orientacoes|diretrizes|regras|ordens|diretivas) (?:anteriores|prévias|previas|acima|dadas|recebidas)`)},
	{rule: "ignore_previous_other", reason: "asks the model to ignore its previous instructions",
		kw: []string{"無視", "무시", "निर्देश", "οδηγ", "εντολ"},
		re: rx(`(?:以前|前|これまで|上記|先)の(?:すべての|全ての)?(?:指示|命令|指令|プロンプト)を(?:すべて|全て)?無視|이전(?:의)? (?:모든 )?(?:지시사항|지시|명령|지침|지시 사항)(?:을|를|은|는)? (?:모두 )?무시|पिछले (?:सभी )?निर्देशों (?:की अनदेखी|को अनदेखा|को नज़रअंदाज़|को नजरअंदाज|को भूल)|(?:αγνοήστε|αγνόησε|ξεχάστε|ξέχασε) (?:όλες )?(?:τις )?(?:προηγούμενες|παραπάνω) (?:οδηγίες|εντολές)`)},
}

// allKW holds every distinct prefilter keyword; a scan tests each at most
// once. internKeywords fills it, and the rules' kwi and kw2i, on first use.
var allKW []string

var internKeywords = sync.OnceFunc(func() {
	idx := map[string]int{}
	intern := func(ks []string) []int {
		var out []int
		for _, k := range ks {
			k = foldPattern(k)
			i, ok := idx[k]
			if !ok {
				i = len(allKW)
				idx[k] = i
				allKW = append(allKW, k)
			}
			out = append(out, i)
		}
		return out
	}
	for i := range injectionRules {
		r := &injectionRules[i]
		r.kwi = intern(r.kw)
		if r.kw2 != nil {
			r.kw2i = intern(r.kw2)
		}
	}
})

// kwCache memoises keyword presence for one view. A set of the byte
// bigrams present in the view rejects most absent keywords without a
// substring search.
type kwCache struct {
	v       string
	state   []int8 // 0 unknown, 1 present, 2 absent
	bigrams *[1024]uint64
}

func newKWCache(v string, state []int8, bg *[1024]uint64) kwCache {
	for i := 0; i+1 < len(v); i++ {
		h := uint32(v[i])<<8 | uint32(v[i+1])
		bg[h>>6] |= 1 << (h & 63)
	}
	return kwCache{v: v, state: state, bigrams: bg}
}

func (c *kwCache) mayContain(k string) bool {
	for i := 0; i+1 < len(k); i++ {
		h := uint32(k[i])<<8 | uint32(k[i+1])
		if c.bigrams[h>>6]&(1<<(h&63)) == 0 {
			return false
		}
	}
	return true
}

func (c *kwCache) any(ids []int) bool {
	for _, i := range ids {
		switch c.state[i] {
		case 1:
			return true
		case 0:
			if c.mayContain(allKW[i]) && strings.Contains(c.v, allKW[i]) {
				c.state[i] = 1
				return true
			}
			c.state[i] = 2
		}
	}
	return false
}

func notFollowedBy(words ...string) func(v string, a, b int) bool {
	return func(v string, a, b int) bool {
		rest := strings.TrimLeft(v[b:], " ")
		for _, w := range words {
			if strings.HasPrefix(rest, w) && (len(rest) == len(w) || !isWordByte(rest[len(w)])) {
				return false
			}
		}
		return true
	}
}

func isWordByte(c byte) bool {
	return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
}

var negations = []string{"never ", "not ", "n't ", "dont ", "avoid ", "without ", "no ", "refuse to ", "won't "}

// negated reports whether the match at a is closely preceded by a negation.
func negated(v string, a int) bool {
	lo := a - 24
	if lo < 0 {
		lo = 0
	}
	pre := v[lo:a]
	for _, n := range negations {
		if i := strings.LastIndex(pre, n); i >= 0 {
			// the negation must be in the same clause
			if !strings.ContainsAny(pre[i:], ".;!?") {
				return true
			}
		}
	}
	return false
}

var (
	htmlCommentInstr = rx(`\b(?:ignore|disregard|forget|instead|you must|you should|you will|you are|assistant|ai|llm|language model|chatgpt|claude|say|state|respond|reply|tell (?:the user|them|him|her|me)|override|system|instructions?|prompt|pretend|act as|do not tell|print the following|output the following)\b`)
	beaconPayload    = rx(`\$\{?[a-z_]|\$\(|\{\{|%7b%7b|%24|(?:secret|token|api_?key|apikey|password|passwd|pwd|session|cookie|credential|auth|env|private)[a-z_]*=|=(?:\[redacted|sk-|ghp_|akia|xox)`)
	sensitiveVar     = `\$(?:\{|\()?[a-z0-9_]*(?:key|token|secret|pass|pwd|cred|auth|session|cookie|aws|private|env)[a-z0-9_]*|\$\((?:env|printenv|set|cat|type|base64)\b[^)]*\)|` + "`" + `(?:env|printenv|cat)[^` + "`" + `]*` + "`"
	sensitiveSource  = rx(`\b(?:printenv|env|set)\b|\.env\b|\.ssh/|id_rsa|id_ed25519|\.aws/|credentials|\.netrc|/etc/passwd|/etc/shadow|\.npmrc|\.pypirc|\.git-credentials|secrets?\b|token|\.kube/config|history`)
	curlURLVar       = rx(`(?:https?://|ftp://)[^\s'"]*(?:` + sensitiveVar + `)`)
	curlDataVar      = rx(`(?:\s-d|\s--data(?:-raw|-binary|-urlencode)?|\s-f|\s--form|\s-t|\s--upload-file|\s--post-data|\s--body-data|\s-body)[\s=]+['"]?[^\s]*(?:` + sensitiveVar + `|@[^\s'"]*(?:\.env|\.ssh|id_rsa|\.aws|credentials|passwd|shadow|\.netrc|\.npmrc|\.git-credentials|\.kube)|@-)`)
)

// htmlComment finds an HTML comment (up to 400 bytes of it, or to the end
// of the text when it is not closed) that carries instructions. Each byte
// is looked at once: the next search starts where the last comment ended.
func htmlComment(v string) (int, int, bool) {
	for pos := 0; pos < len(v); {
		i := strings.Index(v[pos:], "<!--")
		if i < 0 {
			return 0, 0, false
		}
		a := pos + i
		body := v[a+4 : min(len(v), a+4+400)]
		b := a + 4 + len(body)
		if j := strings.Index(body, "-->"); j >= 0 {
			b = a + 4 + j + 3
		}
		if htmlCommentInstr.MatchString(v[a:b]) {
			return a, b, true
		}
		pos = b
	}
	return 0, 0, false
}

func curlExfil(cmd string) bool {
	return curlURLVar.MatchString(cmd) || curlDataVar.MatchString(cmd)
}

// repeatedToken finds a token repeated 10+ times in a row (repeated-token
// divergence attacks). It returns view offsets.
func repeatedToken(v string) (int, int, bool) {
	const minRun = 10
	prev := ""
	run, start := 0, 0
	pos := 0
	for pos <= len(v) {
		end := strings.IndexByte(v[pos:], ' ')
		if end < 0 {
			end = len(v)
		} else {
			end += pos
		}
		tok := strings.Trim(v[pos:end], ".,;:!?'\"")
		if tok != "" && tok == prev {
			run++
		} else {
			prev, run, start = tok, 1, pos
		}
		if run >= minRun && tok != "" {
			// extend to the end of the run
			e := end
			for {
				n := strings.IndexByte(v[min(e+1, len(v)):], ' ')
				next := ""
				ne := len(v)
				if e+1 <= len(v) {
					if n >= 0 {
						ne = e + 1 + n
					}
					next = strings.Trim(v[min(e+1, len(v)):ne], ".,;:!?'\"")
				}
				if next != tok || e >= len(v) {
					break
				}
				e = ne
			}
			return start, e, true
		}
		pos = end + 1
	}
	return 0, 0, false
}

type injHit struct {
	rule, reason string
	a, b         int // view offsets
}

// matchInjection runs the pattern rules over a normalised view.
func matchInjection(v string, stopAtFirst bool) []injHit {
	internKeywords()
	var hits []injHit
	var st [512]int8
	var bg [1024]uint64
	kc := newKWCache(v, st[:len(allKW)], &bg)
	for i := range injectionRules {
		r := &injectionRules[i]
		if !kc.any(r.kwi) || (r.kw2i != nil && !kc.any(r.kw2i)) {
			continue
		}
		// One finding per rule is enough: stop at the first accepted match.
		for pos := 0; pos < len(v); {
			m := r.re.FindStringIndex(v[pos:])
			if m == nil {
				break
			}
			a, b := pos+m[0], pos+m[1]
			pos = max(b, a+1) // step past empty matches
			if r.negatable && negated(v, a) {
				continue
			}
			if r.post != nil && !r.post(v, a, b) {
				continue
			}
			hits = append(hits, injHit{r.rule, r.reason, a, b})
			if stopAtFirst {
				return hits
			}
			break
		}
	}
	if a, b, ok := htmlComment(v); ok {
		hits = append(hits, injHit{"html_comment_instruction", "hidden HTML comment carrying instructions", a, b})
		if stopAtFirst {
			return hits
		}
	}
	if a, b, ok := repeatedToken(v); ok {
		hits = append(hits, injHit{"repeated_token", "the same token repeated many times (divergence attack)", a, b})
		if stopAtFirst {
			return hits
		}
	}
	if a, b, ok := typosquat(v); ok && notAboutAttacks(v, a, b) {
		hits = append(hits, injHit{"typosquat", "names a package one letter away from a popular one (" + v[a:b] + ")", a, b})
	}
	return hits
}
