// Package openai is memcore's opt-in bridge to OpenAI-compatible servers
// (OpenAI, Ollama, llama.cpp, vLLM, …) through openai-go v3: NewChat is a
// memory LLM (an llm.Client) over /v1/chat/completions and NewEmbedder a
// memcore.Embedder over /v1/embeddings. Pass them to memcore.Open in
// Options.LLM and Options.Embedder:
//
//	chat, err := openai.NewChat(openai.ChatConfig{BaseURL: "http://localhost:11434/v1", Model: "qwen2.5:7b"})
//	…
//	emb, err := openai.NewEmbedder(openai.EmbedderConfig{BaseURL: "http://localhost:11434/v1", Model: "nomic-embed-text"})
//	…
//	st, err := memcore.Open(ctx, dir, memcore.Options{LLM: chat, Embedder: emb})
//
// memcore itself does not import this package: an agent that passes its
// own clients, or none (rule-based tasks and the offline hash embedder),
// does not link openai-go.
//
// Everything comes from the config: base URL, key and retry policy are
// passed explicitly, so nothing is read from OPENAI_* environment
// variables.
//
// # Chat
//
// Each Complete call is bounded by ChatConfig.Timeout (default 30 s).
// Request.JSON asks for response_format json_object; a server that rejects
// it with HTTP 400 mentioning response_format or json is retried once
// without it and never sent it again. Errors name the step, the model and
// the base URL; HTTP failures are *HTTPError with the status and a bounded
// body excerpt; a reply without content is ErrEmptyReply.
//
// # Embedder
//
// Texts are sent in batches (EmbedderConfig.BatchSize, default 64), every
// call bounded by Timeout (default 30 s); vectors are L2-normalised and
// kept in a bounded LRU cache keyed by text. The fingerprint names the
// model and the width ("http/<model>/<dims>"), so a store re-embeds when
// either changes.
//
// # Caveats
//
//   - An embedder without EmbedderConfig.Dims learns the width from its
//     first response, so its fingerprint reads "http/<model>/0" until
//     then; set Dims to keep a store's vector cache valid across restarts
//     before the first embedding.
//   - The chat client does not retry (openai-go's retries are off): memcore
//     degrades a failed task to its rule-based behaviour instead.
package openai
