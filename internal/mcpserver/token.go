package mcpserver

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/odekmem/odekmem/internal/owner"
)

// The bearer token of the loopback HTTP transport. Loopback is not a
// boundary between users of one machine: any local account can connect to
// 127.0.0.1, so `odekmem mcp --http` asks for a token there too unless the
// person opts out with --no-token. Without --token-file or
// ODEKMEM_MCP_TOKEN the token lives in TokenFile under the store: created
// once with 32 random bytes, mode 0600, exclusively, never through a link;
// a token file another user owns, or that others can read or write, is
// refused (a readable token is no secret).

// TokenFile is the name of the generated token file in the store
// directory.
const TokenFile = "mcp-token"

// MinTokenLen is the shortest bearer token accepted.
const MinTokenLen = 16

// StoreToken returns the bearer token kept in dir (the store directory),
// creating it when there is none. created reports a new token.
func StoreToken(dir string) (token, path string, created bool, err error) {
	path = filepath.Join(dir, TokenFile)
	token, err = readTokenFile(path)
	if err == nil {
		return token, path, false, nil
	}
	if !errors.Is(err, fs.ErrNotExist) {
		return "", path, false, err
	}
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return "", path, false, err
	}
	token = hex.EncodeToString(b)
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL|oNoFollow, 0o600)
	if errors.Is(err, fs.ErrExist) {
		// Another process created it first: use theirs.
		token, err = readTokenFile(path)
		return token, path, false, err
	}
	if err != nil {
		return "", path, false, fmt.Errorf("create the MCP token file: %w", err)
	}
	if _, err := f.WriteString(token + "\n"); err != nil {
		f.Close()
		os.Remove(path)
		return "", path, false, fmt.Errorf("write the MCP token file: %w", err)
	}
	if err := f.Sync(); err != nil {
		f.Close()
		os.Remove(path)
		return "", path, false, fmt.Errorf("write the MCP token file: %w", err)
	}
	if err := f.Close(); err != nil {
		return "", path, false, err
	}
	return token, path, true, nil
}

// ReadTokenFile reads a bearer token from a file the person named
// (--token-file): a regular file, not a link, that only its owner — this
// user — can read.
func ReadTokenFile(path string) (string, error) {
	return readTokenFile(path)
}

func readTokenFile(path string) (string, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|oNoFollow, 0)
	if err != nil {
		if fi, lerr := os.Lstat(path); lerr == nil && fi.Mode()&fs.ModeSymlink != 0 {
			return "", fmt.Errorf("token file %s is a symbolic link; odekmem reads a token only from a regular file (remove the link: rm %q)", path, path)
		}
		return "", err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return "", err
	}
	if !fi.Mode().IsRegular() {
		return "", fmt.Errorf("token file %s is not a regular file", path)
	}
	if owner := owner.Foreign(fi); owner != "" {
		return "", fmt.Errorf("token file %s belongs to %s: anyone who wrote it knows the token; remove it (rm %q) and start again", path, owner, path)
	}
	if checkTokenMode && fi.Mode().Perm()&0o077 != 0 {
		return "", fmt.Errorf("token file %s has mode %04o: other users can read the token; run: chmod 600 %q", path, fi.Mode().Perm(), path)
	}
	b, err := io.ReadAll(io.LimitReader(f, 4096))
	if err != nil {
		return "", err
	}
	token := strings.TrimSpace(string(b))
	if len(token) < MinTokenLen {
		return "", fmt.Errorf("token file %s holds a token shorter than %d characters", path, MinTokenLen)
	}
	return token, nil
}
