package e2e_test

import (
	"bufio"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
)

// egressGuard is where the agents' proxy variables point: a loopback HTTP
// proxy that forwards nothing. Every attempt to reach a host other than
// loopback (telemetry, update checks, feature flags) arrives here, is
// refused and recorded, so nothing leaves the machine through a client that
// honours HTTP(S)_PROXY, and the test log lists what each agent tried.
type egressGuard struct {
	addr string
	mu   sync.Mutex
	hits []string
}

func newEgressGuard(t testing.TB) *egressGuard {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	g := &egressGuard{addr: ln.Addr().String()}
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go g.refuse(c)
		}
	}()
	t.Cleanup(func() { ln.Close() })
	return g
}

func (g *egressGuard) refuse(c net.Conn) {
	defer c.Close()
	req, err := http.ReadRequest(bufio.NewReader(c))
	if err != nil {
		return
	}
	target := req.Host
	if req.Method != http.MethodConnect {
		target = req.URL.String()
	}
	g.mu.Lock()
	g.hits = append(g.hits, req.Method+" "+target)
	g.mu.Unlock()
	c.Write([]byte("HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"))
}

func (g *egressGuard) attempts() []string {
	g.mu.Lock()
	defer g.mu.Unlock()
	return append([]string(nil), g.hits...)
}

// env is the proxy environment that sends every non-loopback request to
// the guard.
func (g *egressGuard) env() []string {
	u := "http://" + g.addr
	var out []string
	for _, k := range []string{"HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY"} {
		out = append(out, k+"="+u, strings.ToLower(k)+"="+u)
	}
	return append(out, "NO_PROXY=127.0.0.1,localhost", "no_proxy=127.0.0.1,localhost")
}
