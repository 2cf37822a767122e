package memcore_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/odekmem/odekmem/internal/embed"
	"github.com/odekmem/odekmem/memcore"
	"github.com/odekmem/odekmem/memcore/openai"
)

// slowEmbedServer forwards to a scripted embeddings endpoint, except that
// while hang is set a request with a text containing "SLOW" hangs until
// the client gives up (or a minute passes).
func slowEmbedServer(t *testing.T) (srv *httptest.Server, hang *atomic.Bool) {
	inner := hNewEmbedServer(t)
	hang = new(atomic.Bool)
	hang.Store(true)
	srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if hang.Load() && bytes.Contains(body, []byte("SLOW")) {
			select {
			case <-r.Context().Done():
			case <-time.After(time.Minute):
			}
			return
		}
		resp, err := http.Post(inner.srv.URL+r.URL.Path, "application/json", bytes.NewReader(body))
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		defer resp.Body.Close()
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(resp.StatusCode)
		io.Copy(w, resp.Body)
	}))
	t.Cleanup(srv.Close)
	return srv, hang
}

// TestCancelledContextWhileEmbedderIsSlow: with an embedder that hangs,
// Add, AddBatch, Search and SearchMany return the caller's context error
// as soon as it ends, store nothing, and leave the store usable: the next
// calls with a live context work.
func TestCancelledContextWhileEmbedderIsSlow(t *testing.T) {
	srv, _ := slowEmbedServer(t)
	s := stOpen(t, stDir(t), memcore.Options{Embedder: stHTTPEmbedder(t, srv.URL)})
	stAdd(t, s, memcore.AddRequest{Text: "the ledger uses postgres", Source: memcore.SourceUserApproved})

	calls := map[string]func(ctx context.Context) error{
		"Add": func(ctx context.Context) error {
			_, err := s.Add(ctx, memcore.AddRequest{Text: "SLOW to embed", Source: memcore.SourceUserApproved})
			return err
		},
		"AddBatch": func(ctx context.Context) error {
			_, errs, err := s.AddBatch(ctx, []memcore.AddRequest{{Text: "SLOW one", Source: memcore.SourceUserApproved}, {Text: "SLOW two", Source: memcore.SourceUserApproved}})
			if err != nil {
				return err
			}
			return errors.Join(errs...)
		},
		"Search": func(ctx context.Context) error {
			_, err := s.Search(ctx, "SLOW query", memcore.SearchOptions{})
			return err
		},
		"SearchMany": func(ctx context.Context) error {
			_, err := memcore.SearchMany(s, ctx, []memcore.Query{{Text: "SLOW query"}, {Text: "ledger"}})
			return err
		},
		"Recall": func(ctx context.Context) error {
			_, err := s.Recall(ctx, "SLOW recall", memcore.SearchOptions{})
			return err
		},
	}
	for name, call := range calls {
		t.Run(name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
			defer cancel()
			start := time.Now()
			err := call(ctx)
			if !errors.Is(err, context.DeadlineExceeded) {
				t.Fatalf("%s with a context that ends while the embedder hangs: %v, want DeadlineExceeded", name, err)
			}
			if d := time.Since(start); d > 20*time.Second {
				t.Fatalf("%s returned %s after its context ended", name, d)
			}
		})
	}
	// Nothing of the cancelled writes was stored, and the store works.
	atoms, err := s.List(context.Background(), memcore.Filter{})
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range atoms {
		if strings.Contains(a.Text, "SLOW") {
			t.Fatalf("a cancelled add was stored: %q", a.Text)
		}
	}
	stAdd(t, s, memcore.AddRequest{Text: "the blog is built with hugo", Source: memcore.SourceUserApproved})
	res, err := s.Search(context.Background(), "which database does the ledger use", memcore.SearchOptions{})
	if err != nil || len(res) == 0 || !strings.Contains(res[0].Atom.Text, "ledger") {
		t.Fatalf("search after the cancelled calls: %v %+v", err, res)
	}
}

// TestCatchUpEmbeddingHonoursContext: atoms another process added are
// embedded when this store next reloads, outside its locks and with the
// caller's context: a cancelled context ends the wait, and the index
// catches up on a later call.
func TestCatchUpEmbeddingHonoursContext(t *testing.T) {
	srv, hang := slowEmbedServer(t)
	dir := stDir(t)
	s := stOpen(t, dir, memcore.Options{Embedder: stHTTPEmbedder(t, srv.URL)})
	stAdd(t, s, memcore.AddRequest{Text: "the ledger uses postgres", Source: memcore.SourceUserApproved})
	// Another store (a separate open file, as another process) adds an atom
	// whose embedding hangs on this side too; its own embedder is fast.
	other := stOpen(t, dir, memcore.Options{Embedder: embed.NewHash(768)})
	stAdd(t, other, memcore.AddRequest{Text: "SLOW deploys happen on fridays", Source: memcore.SourceUserApproved})
	other.Close(context.Background())

	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := s.Add(ctx, memcore.AddRequest{Text: "the blog is built with hugo", Source: memcore.SourceUserApproved})
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("add whose catch-up embedding hangs: %v, want DeadlineExceeded", err)
	}
	if d := time.Since(start); d > 20*time.Second {
		t.Fatalf("add returned %s after its context ended", d)
	}
	// The add itself was committed before the catch-up began, and the
	// store reads the other process's atom.
	if n := must(s.Stats(context.Background())).Live; n != 3 {
		t.Fatalf("%d live atoms, want 3", n)
	}
	// Once the embedder answers, the next call catches the index up.
	hang.Store(false)
	stAdd(t, s, memcore.AddRequest{Text: "tests run with the race detector", Source: memcore.SourceUserApproved})
	res, err := s.Search(context.Background(), "SLOW deploys fridays", memcore.SearchOptions{})
	if err != nil || len(res) == 0 || !strings.Contains(res[0].Atom.Text, "fridays") {
		t.Fatalf("search for the other process's atom after the catch-up: %v %+v", err, res)
	}
}

// stHTTPEmbedder is memcore/openai's embedder against the test server at
// base.
func stHTTPEmbedder(t *testing.T, base string) memcore.Embedder {
	t.Helper()
	e, err := openai.NewEmbedder(openai.EmbedderConfig{BaseURL: base + "/v1", Model: "test-embed"})
	if err != nil {
		t.Fatal(err)
	}
	return e
}
