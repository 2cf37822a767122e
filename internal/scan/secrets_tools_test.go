package scan_test

import (
	"strings"
	"testing"

	"github.com/odekmem/odekmem/internal/scan"
)

// TestToolSecrets covers the command-line, DSN, cookie and header forms
// of secrets_tools.go and the look-alikes beside them that must pass.
func TestToolSecrets(t *testing.T) {
	tests := []struct {
		name, text, secret string // secret "" means the text must pass unchanged
	}{
		{"mongosh -p", "mongosh 'mongodb://db:27017' -u admin -p 'Qz8vL2mPx9Rt' --authenticationDatabase admin", "Qz8vL2mPx9Rt"},
		{"sqlcmd -P", `sqlcmd -S tcp:sql01 -U sa -P "Qz8vL2mPx9Rt" -Q "SELECT 1"`, "Qz8vL2mPx9Rt"},
		{"sqlcmd -p is not the password", `sqlcmd -S sql01 -E -p -Q "SELECT 1"`, ""},
		// Variants a review found leaking.
		{"ldapsearch -w glued", "ldapsearch -x -D cn=admin -wS3cr3tPw9x uid=j", "S3cr3tPw9x"},
		{"mongo -p glued", "mongo -uadmin -pS3cr3tPw9x db", "S3cr3tPw9x"},
		{"mongodump --port is no password", "mongodump --port 27017 --db shop", ""},
		{"rabbitmqctl options before the verb", "rabbitmqctl -n rabbit@host1 add_user bob S3cr3tPw9x", "S3cr3tPw9x"},
		{"rabbitmqctl authenticate_user", "rabbitmqctl authenticate_user bob S3cr3tPw9x", "S3cr3tPw9x"},
		{"printf into chpasswd", `printf 'root:S3cr3tPw9x\n' | chpasswd`, "S3cr3tPw9x"},
		{"chpasswd here-string", `chpasswd <<< 'root:S3cr3tPw9x'`, "S3cr3tPw9x"},
		{"echo -n into chpasswd", `echo -n 'root:S3cr3tPw9x' | sudo chpasswd`, "S3cr3tPw9x"},
		{"go mysql dsn password with @", `sql.Open("mysql", "app:p@ssW0rd9@tcp(db:3306)/shop")`, "p@ssW0rd9"},
		{"connect.sid with / and +", "Cookie: connect.sid=s%3AkJ8Xq2bLm9Tz4Rb7Kp1Wd6.kJ8/2bq+Zx9Lm3Qp7Rt5Vw1; Path=/", "kJ8/2bq+Zx9Lm3Qp7Rt5Vw1"},
		{"sqlplus connect", "SQL> connect scott/T1ger9x@orcl", "T1ger9x"},
		{"cargo login --", "cargo login -- cio8Xq2bLm9Tz4Rb7Kp1Wd6Yh3Nf", "cio8Xq2bLm9Tz4Rb7Kp1Wd6Yh3Nf"},
		{"quoted password with a space", `mongosh --password "S3cr3t Pw9!"`, "S3cr3t Pw9!"},
		{"net use quoted password with a space", `net use Z: \\fs01\share /user:ACME\jdoe "S3cr3t Pw9"`, "S3cr3t Pw9"},
		{"a session path is no cookie", "path=/var/lib/session_files/abc123def456ghi789", ""},
		{".pgpass password with an escaped colon", `db.acme.dev:5432:*:app:S3cr3t\:Pw9x`, `S3cr3t\:Pw9x`},
		{"terraform default after a nested block", "variable \"db_password\" {\n  type = string\n  validation {\n    condition = length(var.db_password) > 8\n  }\n  default = \"Qz8vL2mPx9Rt\"\n}", "Qz8vL2mPx9Rt"},
		{"a session id in JSON", `{"sessionid": "q8Xf2Lm9Tz4Rb7Kp1Wd6x3"}`, "q8Xf2Lm9Tz4Rb7Kp1Wd6x3"},
		{"a JSON session flag is no cookie", `{"session": "expired-at-midnight-utc"}`, ""},
		// Look-alikes a review found redacted (each passes unchanged).
		{"X-Cache-Key is not a credential", "X-Cache-Key: homepage-v2-en-US", ""},
		{"X-Idempotency-Key is not a credential", "X-Idempotency-Key: 3f0c2a9e-8d5b-4c1e-9a7f-2b6d8e4c1a90", ""},
		{"x-request-key is not a credential", "x-request-key: orders-service-v2", ""},
		{"a compiler message is not a .pgpass line", "main.go:42:13:undefined:Foo", ""},
		{"prose about mongo -p", "In mongo shell pass -p with the password prompt", ""},
		{"ldapsearch -W asks for the password", `ldapsearch -x -D "cn=admin,dc=example,dc=org" -W "(uid=jdoe)"`, ""},
		{"a word ending in sess is not a session cookie", "the assess=q8Xf2Lm9Tz4Rb7Kp1Wd6 value", ""},
		{"htpasswd -C takes the cost, then file user password", "htpasswd -b -C 12 /etc/nginx/.htpasswd admin S3cr3tPw9x", "S3cr3tPw9x"},
		{"ldapsearch -w", "ldapsearch -x -D 'cn=admin,dc=acme' -w 'Qz8vL2mPx9Rt' '(uid=j)'", "Qz8vL2mPx9Rt"},
		{"keytool -storepass", "keytool -list -keystore app.jks -storepass Qz8vL2mPx9Rt", "Qz8vL2mPx9Rt"},
		{"smbclient user%pass", `smbclient //fs01/share -U 'ACME\svc%Qz8vL2mPx9Rt'`, "Qz8vL2mPx9Rt"},
		{"htpasswd -b", "htpasswd -bc /etc/nginx/.htpasswd admin Qz8vL2mPx9Rt", "Qz8vL2mPx9Rt"},
		{"htpasswd prompts", "htpasswd -c /etc/nginx/.htpasswd admin", ""},
		{"rabbitmqctl add_user", "rabbitmqctl add_user metrics 'Qz8vL2mPx9Rt'", "Qz8vL2mPx9Rt"},
		{"net use", `net use Z: \\fs01\share /user:ACME\jdoe Qz8vL2mPx9Rt`, "Qz8vL2mPx9Rt"},
		{"chpasswd", "echo 'jdoe:Qz8vL2mPx9Rt' | sudo chpasswd", "Qz8vL2mPx9Rt"},
		{"tool auth uuid", "snyk auth 5ff3930a-3fd2-4964-aeaa-0618207fdfdd", "5ff3930a-3fd2-4964-aeaa-0618207fdfdd"},
		{"tool login word", "docker login registry.acme.dev", ""},
		{"go mysql dsn", `sql.Open("mysql", "root:Qz8vL2mPx9Rt@tcp(127.0.0.1:3306)/inv")`, "Qz8vL2mPx9Rt"},
		{"sqlplus", "sqlplus system/Qz8vL2mPx9Rt@//ora:1521/ORCL", "Qz8vL2mPx9Rt"},
		{"sqlplus as sysdba", "sqlplus / as sysdba", ""},
		{"pgpass", "db.internal:5432:app:app:Qz8vL2mPx9Rt", "Qz8vL2mPx9Rt"},
		{"mac address", "00:11:22:33:44:55", ""},
		{"timestamp", "12:30:45:100:ok", ""},
		{"terraform default", `variable "db_password" { default = "Qz8vL2mPx9Rt" }`, "Qz8vL2mPx9Rt"},
		{"terraform default of a region", `variable "region" { default = "eu-west-1a2b3" }`, ""},
		{"psk", `WIFI_PSK="Qz8vL2mPx9Rt"`, "Qz8vL2mPx9Rt"},
		{"session cookie", "Cookie: sessionid=kvywze1alktxts5led0z6xvquemh51le; lang=en", "kvywze1alktxts5led0z6xvquemh51le"},
		{"jsessionid", "Set-Cookie: JSESSIONID=JCHOUUL8HCNYMORRBYW6XKBV3NI7QCSK; Path=/", "JCHOUUL8HCNYMORRBYW6XKBV3NI7QCSK"},
		{"session setting", "session_store=redis-cluster-eu-west-1", ""},
		{"x-auth-key", "curl -H 'X-Auth-Key: 5dc063e61bc108361e6e049920b2c64527797' https://api.example.net", "5dc063e61bc108361e6e049920b2c64527797"},
		{"x-request-id", "X-Request-Id: 3f2a6c1e-5b7d-4e8f-9a0b-1c2d3e4f5a6b", ""},
		{"percent-encoded bearer", "Authorization: Bearer AAAAAAAAAAAAAAAAAAAAAAg%2Ftv%3D%3DIV0FbGFV%2Fp%2F82Y", "g%2Ftv%3D%3DIV0FbGFV"},
		{"telegram bot url", "curl https://api.telegram.org/bot6507781886:AAHq8vL2mPx9RtZq8vL2mPx9RtZq8vL2mPx/getMe", "6507781886:AAHq8vL2"},
		{"discord webhook", "https://discord.com/api/webhooks/1723478435527162929/YimI8PO6Y4t_8LHRsCj1qzr9ub7kDSfwJyQe1e6KsU7a", "YimI8PO6Y4t_8LHR"},
		{"docker hub pat", "echo dckr_pat_SkxDdyynZNupGuqHomFbNDPTiBt | docker login -u bot --password-stdin", "dckr_pat_SkxDdyyn"},
		{"getpass call", `pw = getpass.getpass("Password: ")`, ""},
		{"ssh public key", "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIM2D1wvdhSjIg251RxQW+hPPRCW6892c9oGLGs2IcupF jane@laptop", ""},
		{"certificate", "-----BEGIN CERTIFICATE-----\nrpXeyRFv/TmU4pjXIF7xA7RqwvscvB59mnb6Qz8vL2mPx9Rt8nLp3Xk7Qw2ZtY5v\n-----END CERTIFICATE-----", ""},
		{"private key still found", "-----BEGIN PRIVATE KEY-----\nrpXeyRFv/TmU4pjXIF7xA7RqwvscvB59mnb6Qz8vL2mPx9Rt8nLp3Xk7Qw2ZtY5v\n-----END PRIVATE KEY-----", "rpXeyRFv/TmU4pjX"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			red, _ := scan.Redact(tt.text)
			if tt.secret == "" {
				if red != tt.text {
					t.Errorf("changed:\n  %q\n  %q", tt.text, red)
				}
				return
			}
			if strings.Contains(red, tt.secret) {
				t.Errorf("%q survives: %q", tt.secret, red)
			}
		})
	}
}
