package index

import (
	"context"
	"fmt"

	"github.com/odekmem/odekmem/internal/vindex"
)

// startBuildJob fills the indexes in the background, first from cached
// vectors, then by embedding the atoms in ids (whose texts are given: the
// job never reads the store's state). Searches and writes wait for it.
func (v *State) startBuildJob(cached []Item, ids, idTexts []string) {
	ctx, cancel := context.WithCancel(context.Background())
	v.cancel = cancel
	ready := make(chan struct{})
	v.ready.Store(&ready)
	v.building.Store(true)
	v.done.Store(0)
	v.total.Store(int64(len(cached) + len(ids)))
	texts := make(map[string]string, len(ids))
	for i, id := range ids {
		texts[id] = idTexts[i]
	}
	v.wg.Add(1)
	// The background build, owned by the Store: Close cancels and waits.
	go func() {
		defer v.wg.Done()
		defer close(ready)
		defer v.building.Store(false)
		v.mu.RLock()
		ex, isExact := v.idx.(*vindex.Exact)
		v.mu.RUnlock()
		if isExact && len(cached) > 0 {
			ex.Reserve(len(cached) + len(ids))
		}
		const chunk = 4096
		for start := 0; start < len(cached); start += chunk {
			if ctx.Err() != nil {
				v.buildErr.Store(ctx.Err())
				return
			}
			end := min(start+chunk, len(cached))
			v.mu.Lock()
			v.loadCachedLocked(cached[start:end])
			v.mu.Unlock()
			v.done.Add(int64(end - start))
		}
		const batch = 256
		for start := 0; start < len(ids); start += batch {
			end := min(start+batch, len(ids))
			chunk := make([]string, 0, end-start)
			for _, id := range ids[start:end] {
				chunk = append(chunk, texts[id])
			}
			vecs, err := v.emb.Embed(ctx, chunk)
			if err != nil {
				v.buildErr.Store(err)
				return
			}
			v.mu.Lock()
			v.lsh = nil
			for i, vec := range vecs {
				id := ids[start+i]
				if v.idx.Add(id, RoundTrip(vec)) == nil {
					v.lex.Add(id, chunk[i])
					v.textsMap()[id] = chunk[i]
					v.dirty++
				}
			}
			v.mu.Unlock()
			v.done.Add(int64(end - start))
		}
	}()
}

func (v *State) waitBuild() {
	<-*v.ready.Load()
}

// WaitReady blocks until a background rebuild is done or ctx ends.
func (v *State) WaitReady(ctx context.Context) error {
	select {
	case <-*v.ready.Load():
		if err, _ := v.buildErr.Load().(error); err != nil {
			return fmt.Errorf("rebuild vector index: %w", err)
		}
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Progress reports a background build: done and total atoms, and whether
// it is still running.
func (v *State) Progress() (done, total int64, running bool) {
	return v.done.Load(), v.total.Load(), v.building.Load()
}

// Close cancels a background build and waits for it.
func (v *State) Close() {
	if v.cancel != nil {
		v.cancel()
	}
	v.wg.Wait()
}
