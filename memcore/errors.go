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

// ErrNotFound means no live or quarantined atom, pending review,
// contradiction or lane entry has the given id. Returned by Get, Links,
// Forget, Promote, SetPin, DetectContradictions (an atom id), Confirm and
// Reject (a pending review id), ResolveContradiction, Keep and Drop.
var ErrNotFound = errors.New("not found")

// ErrInvalidArgument means an argument is not one the method takes; the
// message names the argument and what it allows, and nothing changed.
// Returned by
//   - Add (and among AddBatch's per-request errors): an empty text, a
//     type that is not one of the Type constants, a confidence outside
//     (0, 1];
//   - List, Search and Tool.Search: a Filter or SearchOptions type that is
//     not one of the Type constants;
//   - Get, Links, Forget, Promote, SetPin, Confirm, Reject and
//     ResolveContradiction: an id that cannot be one (an atom id is 32
//     lowercase hex digits, since ids become file names; a pending review
//     or contradiction id is lowercase letters, digits, '-' and '_'), where
//     an id of the right form that nothing has is ErrNotFound;
//   - Promote: an atom that is live already, or a text of which nothing is
//     left once the characters a person cannot see are removed;
//   - SetPin: an atom that waits in quarantine (promote it first);
//   - Confirm and EditUserModel: a user-model field path they do not
//     understand (a pending review that names one stays queued), or a
//     value the field does not allow (too long, too many items, a style
//     word outside the vocabulary);
//   - ResolveContradiction: a resolution other than ResolveKeepNew,
//     ResolveKeepOld and ResolveKeepBoth;
//   - Keep: no lane entry given;
//   - Tool.Remember: a type or confidence as Add refuses them.
var ErrInvalidArgument = errors.New("invalid argument")

// ErrCapExceeded means a write would push the store over max_size_mb and no
// evictable atom is left to make room; nothing was removed. Returned by
// Add, Promote and RecordAgentMessage, and among AddBatch's per-request
// errors (Import reports it per line, Hook.RecordUserMessage as a
// warning).
var ErrCapExceeded = errors.New("size cap exceeded")

// ErrInvalidConfig means a configuration value is out of range; the message
// names the field and the allowed values. Returned by Open,
// Config.Validate and NewHashEmbedder.
var ErrInvalidConfig = errors.New("invalid config")

// ErrClosed means the store (or a Hook or Tool over it) was used after
// Close. Every method that returns an error returns it after Close.
var ErrClosed = errors.New("store is closed")

// ErrBlocked means the scanner or the guard's second opinion
// (Options.Guard) rejected a value a person was about to make trusted;
// nothing changed, and the message says which and why. Returned by Confirm
// and EditUserModel for a user-model value that fails the scan or that the
// guard judges an injection, and by Promote for an entry the scanner
// flagged that the guard judges an injection (it stays in quarantine).
// Add never returns it: a blocked atom is stored in quarantine instead
// (AddResult.Quarantined and Reason say so), and Promote promotes a
// flagged entry a person chose when no guard objects
// (Origin.StillBlocked).
var ErrBlocked = errors.New("blocked by scanner")

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

// kindError is an error with a message of its own that errors.Is matches
// with one of the sentinels above, its kind: the cases memcore tells apart
// inside, each reported under the sentinel a caller tests.
type kindError struct {
	msg  string
	kind error
}

func (e *kindError) Error() string        { return e.msg }
func (e *kindError) Is(target error) bool { return target == e.kind }

// The cases of ErrInvalidArgument and ErrBlocked.
var (
	errEmptyText         error = &kindError{"empty atom text", ErrInvalidArgument}
	errUnknownType       error = &kindError{"unknown atom type", ErrInvalidArgument}
	errInvalidConfidence error = &kindError{"invalid confidence", ErrInvalidArgument}
	errInvalidID         error = &kindError{"invalid id", ErrInvalidArgument}
	errNotQuarantined    error = &kindError{"atom is not quarantined", ErrInvalidArgument}
	errNotLive           error = &kindError{"atom is not live", ErrInvalidArgument}
	errUnknownField      error = &kindError{"unknown user-model field", ErrInvalidArgument}
	errInvalidValue      error = &kindError{"invalid user-model value", ErrInvalidArgument}
	errBadResolution     error = &kindError{"resolution must be keep-new, keep-old or keep-both", ErrInvalidArgument}
	errGuardRejected     error = &kindError{"the guard endpoint judged it an injection", ErrBlocked}
)

// notFoundError names what was missing and matches ErrNotFound.
type notFoundError struct{ msg string }

func (e *notFoundError) Error() string { return e.msg }
func (e *notFoundError) Unwrap() error { return ErrNotFound }

func notFound(format string, a ...any) error {
	return &notFoundError{msg: fmt.Sprintf(format, a...)}
}

// missingAtom is the error for an id that no live or quarantined atom has:
// ErrInvalidArgument (errInvalidID) when the id is not in odekmem's own form (32 lowercase hex
// digits) — a typo or a made-up id — and ErrNotFound when it is (the atom
// was forgotten, evicted or never existed here). Ids other programs wrote in
// other safe spellings are still found: this runs only after the lookup.
// invalidID is errInvalidID for an id of what (a pending review, a
// contradiction) outside the id alphabet.
func invalidID(what, id string) error {
	return fmt.Errorf("%w: %s is not a %s id", errInvalidID, strconv.Quote(scanRedact(textutil.TruncateChars(id, 80))), what)
}

func missingAtom(id string) error {
	if !isHexID(id) {
		return fmt.Errorf("%w: %s is not an atom id (odekmem ids are 32 lowercase hex digits)", errInvalidID, strconv.Quote(scanRedact(textutil.TruncateChars(id, 80))))
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
