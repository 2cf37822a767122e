package mcpserver

import (
	"context"
	"crypto/subtle"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// HTTPOptions configure the streamable HTTP transport.
type HTTPOptions struct {
	// Addr is host:port. A host that is not loopback needs AllowRemote and
	// a Token.
	Addr        string
	AllowRemote bool
	// Token is required as "Authorization: Bearer <token>" on every
	// address, loopback included (any local user can reach loopback). It
	// is read from a file or the environment by the caller, never argv
	// (StoreToken, ReadTokenFile).
	Token string
	// NoToken serves loopback without a token: the person's explicit
	// choice (--no-token), never a default. Not allowed with AllowRemote.
	NoToken bool
	// Ready, when set, receives the bound address once listening.
	Ready func(addr string)
}

// IsLoopback reports whether a listen host is loopback only.
func IsLoopback(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(strings.Trim(host, "[]"))
	return ip != nil && ip.IsLoopback()
}

// CheckHTTP validates the options before anything listens.
func CheckHTTP(o HTTPOptions) error {
	host, _, err := net.SplitHostPort(o.Addr)
	if err != nil {
		return fmt.Errorf("--http %q: %w (expected host:port, e.g. 127.0.0.1:7411)", o.Addr, err)
	}
	if IsLoopback(host) {
		if o.NoToken {
			return nil
		}
		if len(o.Token) < MinTokenLen {
			return fmt.Errorf("--http %s needs a bearer token of at least %d characters (any local user can reach loopback): --token-file FILE, ODEKMEM_MCP_TOKEN, or the store's %s; --no-token serves without one", o.Addr, MinTokenLen, TokenFile)
		}
		return nil
	}
	if o.NoToken {
		return fmt.Errorf("--no-token is for loopback only: %s is reachable from the network", o.Addr)
	}
	if !o.AllowRemote {
		return fmt.Errorf("--http %s is not a loopback address: the memory would be reachable from the network; pass --allow-remote and a bearer token (--token-file FILE or ODEKMEM_MCP_TOKEN) if you mean it", o.Addr)
	}
	if len(o.Token) < 16 {
		return errors.New("--allow-remote needs a bearer token of at least 16 characters from --token-file FILE or ODEKMEM_MCP_TOKEN")
	}
	return nil
}

// Handler is the HTTP handler: the SDK's streamable transport behind the
// bearer-token check and, on loopback, a Host check against DNS rebinding.
func (s *Server) Handler(o HTTPOptions) http.Handler {
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s.mcp }, &mcp.StreamableHTTPOptions{SessionTimeout: 30 * time.Minute})
	host, _, _ := net.SplitHostPort(o.Addr)
	loop := IsLoopback(host)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if loop {
			rh := r.Host
			if hh, _, err := net.SplitHostPort(rh); err == nil {
				rh = hh
			}
			if !IsLoopback(rh) {
				http.Error(w, "forbidden host", http.StatusForbidden)
				return
			}
		}
		// Fail closed: without a token only an explicit NoToken serves.
		if o.Token != "" || !o.NoToken {
			// The scheme is case-insensitive (RFC 7235): "bearer", "BEARER".
			scheme, got, ok := strings.Cut(r.Header.Get("Authorization"), " ")
			ok = ok && strings.EqualFold(scheme, "Bearer")
			got = strings.TrimLeft(got, " ")
			if !ok || o.Token == "" || subtle.ConstantTimeCompare([]byte(got), []byte(o.Token)) != 1 {
				w.Header().Set("WWW-Authenticate", `Bearer realm="odekmem"`)
				http.Error(w, "unauthorized", http.StatusUnauthorized)
				return
			}
		}
		// One JSON-RPC message per request, bounded as stdio's lines are.
		r.Body = http.MaxBytesReader(w, r.Body, MaxMessageBytes)
		h.ServeHTTP(w, r)
	})
}

// ServeHTTP listens on o.Addr until ctx ends.
func (s *Server) ServeHTTP(ctx context.Context, o HTTPOptions) error {
	if err := CheckHTTP(o); err != nil {
		return err
	}
	ln, err := net.Listen("tcp", o.Addr)
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: s.Handler(o), ReadHeaderTimeout: 10 * time.Second}
	if o.Ready != nil {
		o.Ready(ln.Addr().String())
	}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case <-ctx.Done():
		sctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
		defer cancel()
		srv.Shutdown(sctx)
		return nil
	case err := <-errc:
		if errors.Is(err, http.ErrServerClosed) {
			return nil
		}
		return err
	}
}
