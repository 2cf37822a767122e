package memcore

import (
	"context"
	"errors"
	"fmt"
	"io"
	"runtime"
	"time"

	"github.com/odekmem/odekmem/internal/jsonl"
	"github.com/odekmem/odekmem/internal/par"
)

// Import trusts nothing a file says blindly. It is a person's restore, so
// atoms keep the source class the file claims, but:
//   - every text field of every record kind passes the scanner and the
//     secret redaction: atom text (as any write), the quarantine reason,
//     context session and project, link kinds, pending-review ids, fields,
//     values and evidence, user-model values;
//   - every id must be in the store's id alphabet (vocab.ValidID);
//   - user-model values pass the checks an inferred value passes before it
//     may reach a prompt (known field, scan-clean, one short line);
//   - timestamps in the future are clamped to now (a far-future
//     created_at would dodge decay and eviction, a quarantined_at the TTL);
//   - a line naming a key twice, in any letter case, is refused;
//   - ImportOptions.AsUntrusted quarantines every atom and queues every
//     user-model value as a pending review;
//   - the result counts the trusted records the file brought in.
//
// The input streams through a pipeline with bounded memory whatever the
// file's size: one goroutine reads lines (at most jsonl.MaxLine each) into
// chunks of at most importChunkLines lines or importChunkBytes bytes, a
// worker per core decodes and checks the records of a chunk (importrec.go),
// and the calling goroutine commits the chunks in file order, atoms in
// batches of importBatch (or importBatchBytes of text) with one store write
// each. At most a few chunks are in flight, so memory holds a few MiB of
// input plus one batch. Progress reports, after each batch, how many lines
// are committed: every record of those lines is durable in the store.
//
// A file larger than the store's cap (max_size_mb) is imported like any
// other stream of writes: each atom that does not fit evicts the
// lowest-retention unpinned atoms (expired quarantine first) and the
// quarantine keeps its share by dropping its oldest entries, so a 1M-atom
// file ends with the store full of the atoms with the highest retention
// (newest and most confident, pinned ones always), and the result counts
// the evicted.

// ImportOptions configures Import.
type ImportOptions struct {
	// AsUntrusted puts every atom in quarantine (trusted claims become
	// agent_generated, the claim kept in the reason) and queues user-model
	// values as pending reviews instead of applying them.
	AsUntrusted bool
	// Source names the input in pending-review evidence ("" = "import").
	Source string
	// Progress, when set, is called after every committed batch, every
	// 4,096 lines read, and at the end, always from the goroutine
	// that called Import.
	Progress func(ImportProgress)
}

// ImportProgress is how far an import has come.
type ImportProgress struct {
	// Lines and Bytes are how much of the input has been read.
	Lines int   `json:"lines"`
	Bytes int64 `json:"bytes"`
	// Committed is the number of lines whose every record is durable in
	// the store (a later crash cannot lose them).
	Committed int  `json:"committed"`
	Done      bool `json:"done"`
}

// ImportResult counts what Import did.
type ImportResult struct {
	Live        int `json:"live"`
	Quarantined int `json:"quarantined"`
	Skipped     int `json:"skipped_existing"`
	Links       int `json:"links"`
	Pending     int `json:"pending"`
	// Refreshed counts atoms that matched a live one and refreshed it.
	Refreshed int `json:"refreshed"`
	// Evicted counts atoms removed to stay under the size cap.
	Evicted int `json:"evicted"`
	// ModelValues counts user-model values applied from the file.
	ModelValues int `json:"model_values"`
	// Trusted counts the records the file brought in as trusted: live
	// atoms (user_said or user_approved), refreshed ones and applied
	// user-model values. It is 0 with AsUntrusted.
	Trusted int `json:"trusted"`
	// Lines is how many lines were read.
	Lines int `json:"lines"`
	// Errors lists the records that were refused (the first 100;
	// ErrorCount has the total).
	Errors     []string `json:"errors,omitempty"`
	ErrorCount int      `json:"error_count,omitempty"`
}

const (
	importBatch      = 2048     // atoms per AddBatch
	importBatchBytes = 16 << 20 // text bytes per AddBatch
	importChunkLines = 256      // lines per pipeline chunk
	importChunkBytes = 1 << 20  // input bytes per pipeline chunk
	linkBatch        = 8192     // links per addLinks call
	maxImportErrors  = 100
	progressEvery    = 4096
)

// importChunk is a run of consecutive input lines on its way through the
// pipeline.
type importChunk struct {
	raw   [][]byte // the lines (copies), nil for a line the reader refused
	lines []int    // line number of each
	errs  []string // the reader's error for a refused line
	items []importItem
	last  int   // line number of the chunk's last line
	bytes int64 // input bytes read up to the end of the chunk
	ready chan struct{}
}

// importer is the committing side of one running import.
type importer struct {
	s         *Store
	opts      ImportOptions
	res       ImportResult
	reqs      []AddRequest
	reqBytes  int
	lines     []int // line of each req
	links     []linkRequest
	now       time.Time
	linkFirst int   // line of the first link waiting in links
	committed int   // lines whose records are durable
	handed    int   // last line handed to a batch before a flush
	readBytes int64 // input bytes of the chunks handed over so far
	readLines int
}

func (im *importer) fail(line int, msg string) {
	im.res.ErrorCount++
	if len(im.res.Errors) < maxImportErrors {
		if line > 0 {
			msg = fmt.Sprintf("line %d: %s", line, msg)
		}
		im.res.Errors = append(im.res.Errors, scanRedact(msg))
	}
}

func (im *importer) progress(done bool) {
	if im.opts.Progress != nil {
		im.opts.Progress(ImportProgress{Lines: im.readLines, Bytes: im.readBytes, Committed: im.committed, Done: done})
	}
}

// Import reads JSONL written by Export. Atoms whose id exists already
// are skipped. A bad line is reported with its number and skipped; nothing
// already stored is touched. Nothing a file says is trusted blindly: every
// text field is scanned and its secrets redacted, ids must be valid,
// user-model values pass the checks an inferred value passes, future
// timestamps are clamped to now, a line naming a key twice is refused, and
// ImportOptions.AsUntrusted quarantines every atom and queues every
// user-model value for review. The input streams: memory stays bounded
// however long the file, and what was committed before an error or a
// cancel stays.
func (s *Store) Import(ctx context.Context, r io.Reader, opts ImportOptions) (ImportResult, error) {
	if s.isClosed() {
		return ImportResult{}, ErrClosed
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	im := &importer{s: s, opts: opts, now: s.now().UTC()}
	workers := max(1, runtime.GOMAXPROCS(0))
	ordered := make(chan *importChunk, 2*workers)
	work := make(chan *importChunk, 2*workers)
	var readErr error
	// The reader. It stops at the end of the input, on a read error, or
	// when the import is cancelled (the committer failed or ctx ended).
	// A goroutine of its own: a pipeline stage, not a pool of like work.
	go func() {
		defer close(ordered)
		defer close(work)
		lr := jsonl.NewReader(r, jsonl.MaxLine)
		c := &importChunk{}
		send := func() bool {
			if len(c.raw) == 0 {
				return true
			}
			c.last, c.bytes, c.ready = lr.Line(), lr.Bytes(), make(chan struct{})
			for _, ch := range []chan *importChunk{ordered, work} {
				select {
				case ch <- c:
				case <-ctx.Done():
					return false
				}
			}
			c = &importChunk{}
			return true
		}
		size := 0
		for {
			b, err := lr.Next()
			if err == io.EOF {
				break
			}
			if err != nil && !errors.Is(err, jsonl.ErrLineTooLong) {
				send()
				readErr = fmt.Errorf("import: %w", err)
				return
			}
			line := lr.Line()
			if err != nil {
				c.raw, c.lines, c.errs = append(c.raw, nil), append(c.lines, line), append(c.errs, err.Error())
			} else if len(b) > 0 {
				c.raw, c.lines, c.errs = append(c.raw, append([]byte(nil), b...)), append(c.lines, line), append(c.errs, "")
				size += len(b)
			}
			if len(c.raw) >= importChunkLines || size >= importChunkBytes {
				if !send() {
					return
				}
				size = 0
			}
		}
		if len(c.raw) == 0 {
			// Count the blank lines at the end as read.
			c.raw, c.lines, c.errs = append(c.raw, nil), append(c.lines, lr.Line()), append(c.errs, "")
		}
		send()
	}()
	// The workers: decode and check each line; no store access.
	waitWorkers := par.Go(workers, func() {
		p := &recordParser{opts: opts, now: im.now}
		for c := range work {
			c.items = make([]importItem, len(c.raw))
			for i, b := range c.raw {
				switch {
				case c.errs[i] != "":
					c.items[i] = importItem{errs: []string{c.errs[i]}}
				case b != nil:
					c.items[i] = p.parse(c.lines[i], b)
				}
			}
			c.raw = nil
			close(c.ready)
		}
	})
	err := im.commitChunks(ctx, ordered)
	im.handed = im.readLines
	if err == nil {
		err = im.flushAtoms(ctx)
	}
	if err == nil {
		err = im.flushLinks(ctx)
	}
	if err == nil {
		waitWorkers() // the reader has closed work: the workers are done
		err = readErr
	}
	im.res.Lines = im.readLines
	if err != nil {
		return im.res, err
	}
	im.committed = im.readLines
	im.progress(true)
	return im.res, nil
}

// commitChunks takes the parsed chunks in file order and commits their
// records.
func (im *importer) commitChunks(ctx context.Context, ordered <-chan *importChunk) error {
	for c := range ordered {
		select {
		case <-c.ready:
		case <-ctx.Done():
			return ctx.Err()
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		before := im.readLines / progressEvery
		im.readLines, im.readBytes = c.last, c.bytes
		for _, it := range c.items {
			if err := im.take(ctx, it); err != nil {
				return err
			}
		}
		if !im.markCommitted(c.last) && c.last/progressEvery != before {
			im.progress(false)
		}
	}
	return ctx.Err()
}

// take hands one parsed line to the current batch.
func (im *importer) take(ctx context.Context, it importItem) error {
	for _, e := range it.errs {
		im.fail(it.line, e)
	}
	switch it.kind {
	case itemAtom:
		im.reqs = append(im.reqs, it.req)
		im.lines = append(im.lines, it.line)
		im.reqBytes += len(it.req.Text)
		if len(im.reqs) >= importBatch || im.reqBytes >= importBatchBytes {
			// Links go with the atoms they follow, so every line up to
			// this one is durable after the flush.
			im.handed = it.line
			if err := im.flushAtoms(ctx); err != nil {
				return err
			}
			return im.flushLinks(ctx)
		}
	case itemLink:
		if len(im.links) == 0 {
			im.linkFirst = it.line
		}
		im.links = append(im.links, it.link)
		if len(im.links) >= linkBatch {
			// The atoms a link names come before it in an export.
			im.handed = it.line
			if err := im.flushAtoms(ctx); err != nil {
				return err
			}
			return im.flushLinks(ctx)
		}
	case itemModel:
		return im.applyModel(ctx, it.model)
	}
	return nil
}

func (im *importer) flushAtoms(ctx context.Context) error {
	if len(im.reqs) == 0 {
		return nil
	}
	results, errs, err := im.s.AddBatch(ctx, im.reqs)
	if err != nil {
		return fmt.Errorf("import: %w", err)
	}
	for i, r := range results {
		im.res.Evicted += len(r.Evicted)
		switch {
		case errs[i] != nil:
			im.fail(im.lines[i], fmt.Sprintf("atom %s: %v", im.reqs[i].id, errs[i]))
		case r.Duplicate:
			im.res.Skipped++
		case r.Quarantined:
			im.res.Quarantined++
		case r.Refreshed:
			im.res.Refreshed++
			im.res.Trusted++
		default:
			im.res.Live++
			im.res.Trusted++
		}
	}
	clear(im.reqs) // drop the texts
	im.reqs, im.lines, im.reqBytes = im.reqs[:0], im.lines[:0], 0
	im.markCommitted(im.handed)
	return nil
}

func (im *importer) flushLinks(ctx context.Context) error {
	if len(im.links) == 0 {
		return nil
	}
	n, err := im.s.addLinks(ctx, im.links)
	if err != nil {
		return fmt.Errorf("import: links: %w", err)
	}
	im.res.Links += n
	im.links = im.links[:0]
	im.markCommitted(im.handed)
	return nil
}

// markCommitted moves the committed mark up to line upTo (every line up
// to it has been handed over), short of the first line whose records
// still wait in a batch, and reports progress when it moved.
func (im *importer) markCommitted(upTo int) bool {
	c := upTo
	if len(im.lines) > 0 {
		c = min(c, im.lines[0]-1)
	}
	if len(im.links) > 0 {
		c = min(c, im.linkFirst-1)
	}
	if c <= im.committed {
		return false
	}
	im.committed = c
	im.progress(false)
	return true
}
