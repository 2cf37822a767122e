package llm

import "errors"

// One named error a declaration, each with its doc line, as the house style
// asks (bbolt's errors.go); memcore/errors.go looks alike for that reason.

// ErrNoLLM is returned by tasks that need a model (user-state inference,
// rerank) when the Client is nil. Callers treat it as "surface disabled",
// never as a failure of the agent's turn.
var ErrNoLLM = errors.New("llm: no memory LLM configured")

// ErrEmptyReply means the Client returned an empty reply (or only a
// <think> block).
var ErrEmptyReply = errors.New("llm: empty reply")

// ErrTooLarge means the model output exceeded the parser's size cap.
var ErrTooLarge = errors.New("llm: model output too large")

// ErrNoJSON means no JSON value of the wanted kind was found in the model
// output.
var ErrNoJSON = errors.New("llm: no JSON value in model output")

// ErrMalformedJSON means a JSON value was found but could not be decoded
// (syntax error, trailing comma, nesting too deep, wrong shape).
var ErrMalformedJSON = errors.New("llm: malformed JSON in model output")

// ErrDuplicateKey means an object in the model output repeated a key, either
// exactly or as a case variant ("text" and "Text"). Such output is rejected
// whole: which of the two values a consumer would read is ambiguous.
var ErrDuplicateKey = errors.New("llm: duplicate key in model output")
