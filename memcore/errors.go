package memcore

import (
	"errors"
	"fmt"
	"strconv"

	"github.com/odekmem/odekmem/internal/lockfile"
	"github.com/odekmem/odekmem/internal/textutil"
)

// ErrNotFound means no live or quarantined atom, pending review or
// contradiction has the given id.
var ErrNotFound = errors.New("not found")

// ErrInvalidID means an id cannot be one: an atom id is 32 lowercase hex
// digits (ids become file names, so anything else is refused); a pending
// review or contradiction id is lowercase letters, digits, '-' and '_'.
var ErrInvalidID = errors.New("invalid id")

// ErrCapExceeded means a write would push the store over max_size_mb and no
// evictable atom is left to make room. Nothing was removed.
var ErrCapExceeded = errors.New("size cap exceeded")

// ErrUnknownField means a pending review names a user-model path that
// confirm does not understand.
var ErrUnknownField = errors.New("unknown user-model field")

// ErrNotQuarantined means promote was asked for an atom that is live already.
var ErrNotQuarantined = errors.New("atom is not quarantined")

// ErrNotLive means pin or unpin was asked for an atom that is not live.
var ErrNotLive = errors.New("atom is not live")

// ErrInvalidConfig means a configuration value is out of range; the message
// names the field and the allowed values.
var ErrInvalidConfig = errors.New("invalid config")

// ErrClosed means the store was used after Close.
var ErrClosed = errors.New("store is closed")

// ErrEmptyText means an atom's text is empty after trimming.
var ErrEmptyText = errors.New("empty atom text")

// ErrBlocked means the caller asked for a trusted write that the scanner
// rejected; the atom went to quarantine instead (see AddResult.Reason).
var ErrBlocked = errors.New("blocked by scanner")

// ErrUnknownType means an atom type is not one of the Type constants.
var ErrUnknownType = errors.New("unknown atom type")

// ErrInvalidConfidence means a confidence is outside (0, 1] (0 = unset).
var ErrInvalidConfidence = errors.New("invalid confidence")

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

// ErrLockTimeout means another process held the store's lock file for
// longer than Options.LockTimeout; the message names the lock file and the
// last process that held it.
var ErrLockTimeout = lockfile.ErrTimeout

// ErrUnsafeStore means the store directory or one of its files is a
// symbolic link, belongs to another user, or stays writable by other users:
// the store is refused rather than trusted. The message names the path and
// the command that fixes it.
var ErrUnsafeStore = errors.New("unsafe store")
