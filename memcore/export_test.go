package memcore

import "context"

// Test-only access for the black-box tests in package memcore_test. These
// are internal steps of the Hook and the Store, not part of the API.

// The association kinds (Link.Kind).
const (
	LinkTemporal   = linkTemporal
	LinkTask       = linkTask
	LinkSemantic   = linkSemantic
	LinkSupersedes = linkSupersedes
)

// ExportFile writes the export to a new file at path (exportFile).
func ExportFile(s *Store, ctx context.Context, path string) error { return s.exportFile(ctx, path) }

// QueuePending adds an inference to pending_review (as the Hook's
// user-state inference does).
var QueuePending = (*Store).queuePending

// ApplyDirect sets a user-model field without review (as a direct
// inference does).
var ApplyDirect = (*Store).applyDirect

// AddLinks records associations between existing atoms.
var AddLinks = (*Store).addLinks

// WaitHook blocks until the Hook's background inference finishes, leaving
// the Hook open.
var WaitHook = (*Hook).wait

// SupersededBy returns the successor of a superseded live atom, or "".
var SupersededBy = (*Store).supersededBy

// Infer runs one user-state inference now (the Hook runs it in the
// background every user_state_turn_interval turns).
var Infer = (*Hook).infer

// RenderBlock renders atoms as the memory block.
var RenderBlock = (*Store).renderBlock

// ExpireQuarantine removes quarantine entries past their TTL now (as
// Compact does) and returns how many went.
func ExpireQuarantine(s *Store) (int, error) {
	n := 0
	err := s.update(context.Background(), func(t *tx) error {
		before := len(s.quar)
		s.expireLocked(t)
		n = before - len(s.quar)
		return nil
	})
	return n, err
}

// LinkRequest asks for one association.
type LinkRequest = linkRequest

// VerbatimUserSpan is the tool's provenance rule: whether text is a
// verbatim span of the person's message, and why not.
var VerbatimUserSpan = verbatimUserSpan

// CheckUserModelValue is the one check a user-model value passes before it
// may be applied.
var CheckUserModelValue = checkUserModelValue

// ToolResult is the memory tool's JSON answer, decoded.
type ToolResult = toolResult

// SearchMany runs several searches in one pass over the index (the Hook's
// per-turn searches).
var SearchMany = (*Store).searchMany

// Query is one search of SearchMany.
type Query = searchQuery

// Associate links a live atom to its neighbours.
var Associate = (*Store).associate

// WithID is r with an existing id (as import and undo set it).
func WithID(r AddRequest, id string) AddRequest {
	r.id = id
	return r
}

// ApplyField sets a user-model field on m as a confirm does.
func ApplyField(m *UserModel, field, value string) error { return m.apply(field, value) }
