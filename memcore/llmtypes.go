package memcore

import "github.com/odekmem/odekmem/memcore/llm"

// LLMClient is the memory LLM: one chat-completion call. Agents can hand in
// their own client; see package llm for the OpenAI-compatible one.
type LLMClient = llm.Client
