package scan_test

import (
	"strings"
	"testing"

	"github.com/odekmem/odekmem/internal/scan"
)

func TestShapedSecrets(t *testing.T) {
	tests := []struct {
		name, text, kind string // kind "" means no credential
	}{
		{"mnemonic", "seed: abandon dolphin harbor kidney lobster mango napkin olive panda rabbit saddle tomato", "bip39_mnemonic"},
		{"numbered mnemonic", "1. abandon 2. dolphin 3. harbor 4. kidney 5. lobster 6. mango 7. napkin 8. olive 9. panda 10. rabbit 11. saddle 12. tomato", "bip39_mnemonic"},
		{"repeated words are no phrase", strings.Repeat("long task ", 30), ""},
		{"eleven words are too few", "abandon dolphin harbor kidney lobster mango napkin olive panda rabbit saddle", ""},
		{"sha256 next to no key word", "build cache entry 9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08", ""},
		{"hex key next to private key", "private key 9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08", "hex_private_key"},
		{"mysql -p", "mysql -u root -pS3cr3tPass db", "cli_password"},
		{"mysql -p prompts", "mysql -u root -p db", ""},
		{"curl -u", "curl -u ci:Zq8vL2mPx9 https://api.example.com", "cli_password"},
		{"netrc", "machine example.com login me password Zq8vL2mPx9", "netrc_password"},
		{"pw placeholder", "pw: <your password>", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, fs := scan.Redact(tt.text)
			got := ""
			if len(fs) > 0 {
				got = fs[0].Rule
			}
			if got != tt.kind {
				t.Fatalf("Redact(%q) found %q, want %q", tt.text, got, tt.kind)
			}
		})
	}
}
