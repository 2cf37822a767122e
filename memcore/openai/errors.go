package openai

import "errors"

// ErrEmptyReply means the chat server answered but the reply had no
// choices or an empty message content (a refusal is quoted). Returned by
// Chat.Complete.
var ErrEmptyReply = errors.New("openai: empty reply")
