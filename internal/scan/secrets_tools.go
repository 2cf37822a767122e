package scan

import (
	"strings"

	"github.com/odekmem/odekmem/internal/lazyre"
)

// Credentials in the forms that command-line tools, connection strings,
// cookies and a few more vendors give them, beside secrets.go,
// secrets_more.go and secrets_shapes.go: each tool's own password flag
// (mongosh -p, sqlcmd -P, ldapsearch -w, keytool -storepass, smbclient
// -U user%pass, htpasswd -b), positional passwords (rabbitmqctl add_user,
// net use, "<tool> login <token>"), Go's MySQL DSN, Oracle's
// user/password@db, .pgpass lines, Terraform variable defaults, session
// cookies, Discord webhooks and Docker Hub tokens.

// toolSecretRules are appended after the generic rules (see init in
// secrets_more.go).
var toolSecretRules = []secretRule{
	{kind: "discord_webhook", reason: "Discord webhook URL", kw: []string{"/api/webhooks/"},
		re: lazyre.New(`(?P<s>https?://(?:ptb\.|canary\.)?discord(?:app)?\.com/api/webhooks/\d{5,20}/[A-Za-z0-9_\-]{20,})`)},
	{kind: "dockerhub_token", reason: "Docker Hub access token", kw: []string{"dckr_"},
		re: lazyre.New(`\b(?P<s>dckr_(?:pat|oat)_[A-Za-z0-9_\-]{20,})`)},
	// A password flag of one tool: mongosh/mongodump -p, sqlcmd/bcp -P,
	// ldapsearch/ldapmodify -w, keytool/jarsigner -storepass/-keypass,
	// smbclient -U user%pass, htpasswd -b file user pass, rabbitmqctl
	// add_user user pass, net use \\host /user:x pass.
	{kind: "cli_password", reason: "password on a command line", kw: []string{"mongo", "sqlcmd", "bcp", "ldap", "keytool", "jarsigner", "smbclient", "htpasswd", "rabbitmqctl", "net use"}, lower: true,
		re: lazyre.New(`(?i)\b(?:mongo|mongosh|mongodump|mongorestore|mongoexport|mongoimport|mongostat|mongotop)\b[^\n|;&]{0,200}?\s(?:(?:-p[ \t]+|--password[= ])(?:"(?P<s>[^"\n]{3,})"|'(?P<s>[^'\n]{3,})'|(?P<s>[^\s"'\x60]{3,}))|-p(?P<s>[^\s"'\x60]*[0-9!@#$%^&*+=~][^\s"'\x60]*))` +
			`|\b(?:sqlcmd|bcp|osql)\b[^\n|;&]{0,200}?\s(?-i:-P)[ \t]*(?:"(?P<s>[^"\n]{3,})"|'(?P<s>[^'\n]{3,})'|(?P<s>[^\s"'\x60]{3,}))` +
			`|\bldap(?:search|modify|add|delete|passwd|whoami|compare|modrdn|exop)\b[^\n|;&]{0,200}?\s(?-i:-w)[ \t]*(?:"(?P<s>[^"\n]{3,})"|'(?P<s>[^'\n]{3,})'|(?P<s>[^\s"'\x60]{3,}))` +
			`|\b(?:keytool|jarsigner)\b[^\n|;&]{0,300}?\s-(?:src|dest|new)?(?:storepass|keypass)[ \t]+(?:"(?P<s>[^"\n]{3,})"|'(?P<s>[^'\n]{3,})'|(?P<s>[^\s"'\x60]{3,}))` +
			`|\bsmbclient\b[^\n|;&]{0,200}?\s(?:-U[ \t]*|--user[= ])["']?[^\s%"']+%(?P<s>[^\s"'\x60]{3,})` +
			`|\bhtpasswd\s+(?:-[A-Za-z]+(?:\s+\d+)?\s+)*?-[A-Za-z]*b[A-Za-z]*\s+(?:-[A-Za-z]+(?:\s+\d+)?\s+)*\S+\s+\S+\s+(?:"(?P<s>[^"\n]{3,})"|'(?P<s>[^'\n]{3,})'|(?P<s>[^\s"'\x60]{3,}))` +
			`|\brabbitmqctl\s+(?:-{1,2}[A-Za-z][\w\-]*(?:[ \t=]+[^\s\-]\S*)?\s+)*?(?:add_user|change_password|authenticate_user)\s+\S+\s+(?:"(?P<s>[^"\n]{3,})"|'(?P<s>[^'\n]{3,})'|(?P<s>[^\s"'\x60]{3,}))` +
			`|\bnet\s+use\b[^\n|;&]{0,160}?\s/user:\S+\s+(?:"(?P<s>[^"\n]{3,})"|(?P<s>[^\s"'\x60/]{3,}))`),
		valid: func(s, _ string) bool {
			return !isPlaceholderPassword(s) && !strings.HasPrefix(s, "-") && !flagProseWord[s]
		}},
	// echo 'user:pass' | chpasswd
	{kind: "cli_password", reason: "password piped to chpasswd", kw: []string{"chpasswd"},
		re:    lazyre.New(`\b(?:echo|printf)\s+(?:-[en]+\s+)?["']?[A-Za-z0-9_.\-]+:(?P<s>[^\s"'\x60\\]{3,})(?:\\n)?["']?\s*\|\s*(?:sudo\s+)?chpasswd|\bchpasswd\s*<<<\s*["']?[A-Za-z0-9_.\-]+:(?P<s>[^\s"'\x60]{3,})`),
		valid: func(s, _ string) bool { return !isPlaceholderPassword(s) }},
	// <tool> login <token>, <tool> auth <token> (snyk auth, cargo login,
	// vault login): the value must look random or be a UUID.
	{kind: "cli_password", reason: "token given to a tool's login command", kw: []string{" login ", " auth "},
		re: lazyre.New(`\b[a-z][a-z0-9\-]{1,20}\s+(?:login|auth)\s+(?:--\s+)?["']?(?P<s>[A-Za-z0-9_\-.+/=]{16,})["']?(?:\s|$)`),
		valid: func(s, _ string) bool {
			return !isPlaceholderPassword(s) && (isUUID(s) || secretLooking(s, 16))
		}},
	// Go's MySQL driver DSN: user:password@tcp(host:3306)/db
	{kind: "url_password", reason: "password in a database DSN", kw: []string{"@tcp(", "@unix(", "@udp(", "@tcp6("},
		re:    lazyre.New(`(?:^|[\s"'\x60=(])[^\s:/@"'\x60=(]+:(?P<s>[^\s"'\x60]+)@(?:tcp6?|unix|udp)\(`),
		valid: func(s, _ string) bool { return !isPlaceholderPassword(s) }},
	// Oracle tools: sqlplus user/password@db
	{kind: "cli_password", reason: "password in an Oracle connect string", kw: []string{"sqlplus", "sqlldr", "expdp", "impdp", "rman", "dgmgrl", "conn"}, lower: true,
		re:    lazyre.New(`(?i)\b(?:sqlplus|sqlldr|expdp|impdp|rman|dgmgrl)\b[^\n|;&]{0,60}?\s["']?[A-Za-z0-9_$#]+/(?P<s>[^\s@/"']{3,})(?:@|["']?(?:\s|$))|\bconn(?:ect)?\s+[A-Za-z0-9_$#]+/(?P<s>[^\s@/"']{3,})@`),
		valid: func(s, _ string) bool { return !isPlaceholderPassword(s) }},
	// .pgpass: hostname:port:database:username:password
	{kind: "pgpass_password", reason: ".pgpass password", kw: []string{":"},
		re: lazyre.New(`(?m)^[ \t]*(?P<ctx>[A-Za-z0-9_.\-*]+):(?:\d{1,5}|\*):[^:\s]*[A-Za-z_*][^:\s]*:[^:\s]+:(?P<s>(?:[^:\s\\]|\\.)+)[ \t]*$`),
		valid: func(s, ctx string) bool {
			return strings.ContainsAny(ctx, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ.*") && !sourceFile.MatchString(ctx) && validAssignment(s, "password")
		}},
	// Terraform: variable "db_password" { default = "x" }
	{kind: "secret_assignment", reason: "default of a secret-named Terraform variable", kw: []string{"variable"},
		re: lazyre.New(`\bvariable\s+"(?P<ctx>[^"\n]*)"\s*\{(?:[^{}]|\{[^{}]*\})*?\bdefault\s*=\s*"(?P<s>[^"\n]{3,})"`),
		valid: func(s, ctx string) bool {
			return secretNamed.MatchString(ctx) && validAssignment(s, "password")
		}},
	// Session cookies: sessionid=…, JSESSIONID=…, PHPSESSID=…,
	// connect.sid=…, _app_session=…, laravel_session=…
	{kind: "session_cookie", reason: "session cookie", kw: []string{"sess", "sid="}, lower: true,
		re:    lazyre.New(`(?i)(?:^|[\s;:,"'])(?P<ctx>(?:[A-Za-z0-9_.\-]*[_.\-])?(?:sess(?:ion)?(?:[_\-]?id)?)|jsessionid|phpsessid|aspsessionid\w*|[A-Za-z0-9_\-]*\.sid)=(?P<s>[^\s;,"'\x60]{16,})|"(?P<ctx>(?:[A-Za-z0-9_.\-]*[_.\-])?sess(?:ion)?(?:[_\-]?id)?|jsessionid|phpsessid)"\s*:\s*"(?P<s>[^"\s]{16,})"`),
		valid: validSessionValue},
}

// flagProseWord lists words a sentence about a tool's password flag puts where
// the password would be ("pass -p with the prompt"): never a value.
var flagProseWord = map[string]bool{"with": true, "the": true, "and": true, "for": true, "from": true, "when": true, "then": true,
	"flag": true, "option": true, "prompt": true, "instead": true, "here": true, "there": true, "this": true, "that": true}

// sourceFile is a host field that is a source file's name: a compiler's
// file:line:col:… message, not a .pgpass line.
var sourceFile = lazyre.New(`(?i)\.(?:go|py|js|jsx|ts|tsx|rs|c|h|cc|cpp|hpp|java|kt|scala|rb|php|cs|swift|m|mm|ex|exs|erl|hs|ml|clj|lua|pl|sh|zig|dart|vue|svelte)$`)

// secretNamed is a name that says it holds a secret.
var secretNamed = lazyre.New(`(?i)` + secretName + `|pass|psk`)

// validSessionValue accepts a session cookie's value that looks random: not
// a placeholder, a path or words joined together, with digits and at least
// 3.5 bits of entropy a character.
func validSessionValue(s, _ string) bool {
	if isPlaceholderPassword(s) || wordsLike(s) || strings.HasPrefix(s, "/") || strings.Contains(s, "://") || !hasDigit(s) {
		return false
	}
	return entropy(s) >= 3.5
}
