package memcore

import (
	"errors"
	"fmt"
	"strconv"

	"github.com/odekmem/odekmem/internal/lockfile"
	"github.com/odekmem/odekmem/internal/textutil"
)

// Every sentinel error of the package is declared here, one a declaration
// with its doc line (bbolt's errors.go). Each says which methods return it;
// those methods wrap it with %w and a short lowercase step, so test with
// errors.Is. After Close every method that can fail returns ErrClosed;
// any method that reads or writes the store can return ErrLockTimeout,
// ErrUnsafeStore and its ctx's error (every such method takes a ctx), and
// the others below are returned only where named.

// ErrNotFound means no live or quarantined atom, pending review or
// contradiction has the given id. Returned by Get, Links, Forget, Promote,
// SetPin, DetectContradictions (an atom id), Confirm and Reject (a pending
// review id) and ResolveContradiction.
var ErrNotFound = errors.New("not found")

// ErrInvalidID means an id cannot be one: an atom id is 32 lowercase hex
// digits (ids become file names, so anything else is refused); a pending
// review or contradiction id is lowercase letters, digits, '-' and '_'.
// Returned by the same methods as ErrNotFound, for such an id.
var ErrInvalidID = errors.New("invalid id")

// ErrCapExceeded means a write would push the store over max_size_mb and no
// evictable atom is left to make room; nothing was removed. Returned by
// Add, Promote and RecordAgentMessage, and among AddBatch's per-request
// errors (Import reports it per line, Hook.RecordUserMessage as a
// warning).
var ErrCapExceeded = errors.New("size cap exceeded")

// ErrUnknownField means a pending review names a user-model path that
// confirm does not understand; the entry stays queued. Returned by Confirm.
var ErrUnknownField = errors.New("unknown user-model field")

// ErrInvalidValue means a user-model value is not one the field allows
// (too long, too many items, a style word outside the vocabulary).
// Returned by Confirm.
var ErrInvalidValue = errors.New("invalid user-model value")

// ErrNotQuarantined means Promote was asked for an atom that is live
// already.
var ErrNotQuarantined = errors.New("atom is not quarantined")

// ErrNotLive means SetPin was asked for an atom that waits in quarantine.
var ErrNotLive = errors.New("atom is not live")

// ErrInvalidConfig means a configuration value is out of range; the message
// names the field and the allowed values. Returned by Open,
// Config.Validate and NewHashEmbedder.
var ErrInvalidConfig = errors.New("invalid config")

// ErrClosed means the store (or a Hook or Tool over it) was used after
// Close. Every method that returns an error returns it after Close.
var ErrClosed = errors.New("store is closed")

// ErrEmptyText means an atom's text is empty after trimming. Returned by
// Add (and among AddBatch's per-request errors), and by Promote when nothing is left of the text once
// the characters a person cannot see are removed.
var ErrEmptyText = errors.New("empty atom text")

// ErrBlocked means the scanner (or the guard, ErrGuardRejected beside it)
// rejected a value a person was about to make trusted; nothing changed.
// Returned by Confirm for a pending user-model value that fails the scan.
// Add never returns it: a blocked atom is stored in quarantine instead
// (AddResult.Quarantined and Reason say so), and Promote promotes a
// flagged entry a person chose (Origin.StillBlocked).
var ErrBlocked = errors.New("blocked by scanner")

// ErrGuardRejected means the guard's second opinion (Options.Guard) judged
// a text an injection. Returned by Promote of an entry the scanner flagged
// (it stays in quarantine) and by Confirm (with ErrBlocked).
var ErrGuardRejected = errors.New("the guard endpoint judged it an injection")

// ErrUnknownType means an atom type is not one of the Type constants.
// Returned by Add (and among AddBatch's per-request errors), List (Filter.Type) and Search and Recall
// (SearchOptions.Types).
var ErrUnknownType = errors.New("unknown atom type")

// ErrInvalidConfidence means a confidence is outside (0, 1] (0 = unset).
// Returned by Add (and among AddBatch's per-request errors).
var ErrInvalidConfidence = errors.New("invalid confidence")

// ErrBadResolution means ResolveContradiction was given a resolution
// other than ResolveKeepNew, ResolveKeepOld or ResolveKeepBoth.
var ErrBadResolution = errors.New("resolution must be keep-new, keep-old or keep-both")

// ErrLockTimeout means another process held the store's lock file for
// longer than Options.LockTimeout; the message names the lock file and the
// last process that held it. Returned by Open and by any method that reads
// or writes the store.
var ErrLockTimeout = lockfile.ErrTimeout

// ErrUnsafeStore means the store directory or one of its files is a
// symbolic link, belongs to another user, or stays writable by other users:
// the store is refused rather than trusted. The message names the path and
// the command that fixes it. Returned by Open and by any method that
// reloads the store.
var ErrUnsafeStore = errors.New("unsafe store")

// notFoundError names what was missing and matches ErrNotFound.
type notFoundError struct{ msg string }

func (e *notFoundError) Error() string { return e.msg }
func (e *notFoundError) Unwrap() error { return ErrNotFound }

func notFound(format string, a ...any) error {
	return &notFoundError{msg: fmt.Sprintf(format, a...)}
}

// missingAtom is the error for an id that no live or quarantined atom has:
// ErrInvalidID when the id is not in odekmem's own form (32 lowercase hex
// digits) — a typo or a made-up id — and ErrNotFound when it is (the atom
// was forgotten, evicted or never existed here). Ids other programs wrote in
// other safe spellings are still found: this runs only after the lookup.
// invalidID is ErrInvalidID for an id of what (a pending review, a
// contradiction) outside the id alphabet.
func invalidID(what, id string) error {
	return fmt.Errorf("%w: %s is not a %s id", ErrInvalidID, strconv.Quote(scanRedact(textutil.TruncateChars(id, 80))), what)
}

func missingAtom(id string) error {
	if !isHexID(id) {
		return fmt.Errorf("%w: %s is not an atom id (odekmem ids are 32 lowercase hex digits)", ErrInvalidID, strconv.Quote(scanRedact(textutil.TruncateChars(id, 80))))
	}
	return notFound("no atom %s", id)
}

func isHexID(id string) bool {
	if len(id) != 32 {
		return false
	}
	for i := 0; i < len(id); i++ {
		if c := id[i]; (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}
