package llm

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync/atomic"
	"time"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/shared"
)

// Message is one chat message. Role is "system", "user" or "assistant";
// anything else is sent as "user".
type Message struct{ Role, Content string }

// Request is one completion request.
type Request struct {
	// System is sent as the first, system-role message when non-empty.
	System   string
	Messages []Message
	// MaxTokens overrides the client's configured limit when > 0.
	MaxTokens int
	// Temperature overrides the client's configured temperature when non-nil.
	Temperature *float64
	// JSON asks the server for JSON output (response_format json_object).
	// Servers that reject it are retried without it; callers must still parse
	// the reply defensively.
	JSON bool
}

// Client is the one thing the memory layer needs from a model. Agents can
// hand in their own implementation (or a ClientFunc); OpenAI is the stock one.
type Client interface {
	Complete(ctx context.Context, req Request) (string, error)
}

// ClientFunc adapts a function to the Client interface.
type ClientFunc func(ctx context.Context, req Request) (string, error)

// Complete calls f.
func (f ClientFunc) Complete(ctx context.Context, req Request) (string, error) { return f(ctx, req) }

// Config configures the OpenAI-compatible client.
type Config struct {
	// BaseURL of an OpenAI-compatible API, e.g. "http://localhost:11434/v1".
	// Required: the client never falls back to OPENAI_BASE_URL.
	BaseURL string
	// APIKey; empty is sent as "unused" (local servers ignore it). The key is
	// never read from OPENAI_API_KEY and never appears in errors.
	APIKey string
	// Model name. Required.
	Model string
	// MaxTokens per reply; 0 means DefaultMaxTokens.
	MaxTokens int
	// Temperature; sent on every request unless negative (negative omits
	// the field and leaves the server default).
	Temperature float64
	// TimeoutSeconds bounds each Complete call; 0 means DefaultTimeoutSeconds.
	TimeoutSeconds int
	// Thinking records that the model has reasoning enabled. It changes
	// nothing on the wire; see ThinkingWarning.
	Thinking bool
	// HTTPClient is optional; nil uses http.DefaultClient.
	HTTPClient *http.Client
}

// Defaults applied by NewOpenAI.
const (
	DefaultMaxTokens      = 1024
	DefaultTimeoutSeconds = 30
)

// ThinkingWarning returns the warning the design asks for when the memory
// layer runs on a model with thinking enabled and no dedicated memory LLM is
// configured, or "" when no warning is due.
func ThinkingWarning(cfg Config, dedicated bool) string {
	if !cfg.Thinking || dedicated {
		return ""
	}
	return fmt.Sprintf("memory: model %q has thinking enabled and no dedicated memory.extended.llm is configured; "+
		"extraction and rerank may be slow and expensive", cfg.Model)
}

// OpenAI is a Client over openai-go v3 chat completions. It is safe for
// concurrent use.
type OpenAI struct {
	cfg     Config
	client  openai.Client
	timeout time.Duration
	// noJSONMode is set once the server has rejected response_format; the
	// client never sends it again.
	noJSONMode atomic.Bool
}

// NewOpenAI builds a client. It passes base URL, key and retry policy
// explicitly so nothing is taken from OPENAI_* environment variables.
func NewOpenAI(cfg Config) (*OpenAI, error) {
	if strings.TrimSpace(cfg.BaseURL) == "" {
		return nil, errors.New("llm: new client: base URL is required")
	}
	if strings.TrimSpace(cfg.Model) == "" {
		return nil, fmt.Errorf("llm: new client at %s: model is required", cfg.BaseURL)
	}
	if cfg.MaxTokens <= 0 {
		cfg.MaxTokens = DefaultMaxTokens
	}
	if cfg.TimeoutSeconds <= 0 {
		cfg.TimeoutSeconds = DefaultTimeoutSeconds
	}
	key := cfg.APIKey
	if key == "" {
		key = "unused"
	}
	opts := []option.RequestOption{
		option.WithBaseURL(cfg.BaseURL),
		option.WithAPIKey(key),
		option.WithMaxRetries(0),
		option.WithMiddleware(captureErrorBody),
	}
	if cfg.HTTPClient != nil {
		opts = append(opts, option.WithHTTPClient(cfg.HTTPClient))
	}
	return &OpenAI{
		cfg:     cfg,
		client:  openai.NewClient(opts...),
		timeout: time.Duration(cfg.TimeoutSeconds) * time.Second,
	}, nil
}

// Model returns the configured model name.
func (o *OpenAI) Model() string { return o.cfg.Model }

// BaseURL returns the configured base URL.
func (o *OpenAI) BaseURL() string { return o.cfg.BaseURL }

// Thinking reports whether the configuration marked the model as thinking.
func (o *OpenAI) Thinking() bool { return o.cfg.Thinking }

// JSONModeDisabled reports whether the server rejected response_format and
// the client stopped sending it.
func (o *OpenAI) JSONModeDisabled() bool { return o.noJSONMode.Load() }

// Complete sends one chat completion and returns the first choice's content,
// trimmed. Errors name the step, the model and the base URL.
func (o *OpenAI) Complete(ctx context.Context, req Request) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, o.timeout)
	defer cancel()

	useJSON := req.JSON && !o.noJSONMode.Load()
	out, err := o.call(ctx, req, useJSON)
	if err != nil && useJSON && rejectsJSONMode(err) {
		o.noJSONMode.Store(true)
		out, err = o.call(ctx, req, false)
		if err != nil {
			return "", o.wrap("chat completion (retry without response_format)", err)
		}
		return out, nil
	}
	if err != nil {
		return "", o.wrap("chat completion", err)
	}
	return out, nil
}

func (o *OpenAI) wrap(step string, err error) error {
	return fmt.Errorf("llm: %s (model %q at %s): %w", step, o.cfg.Model, o.cfg.BaseURL, err)
}

func (o *OpenAI) call(ctx context.Context, req Request, useJSON bool) (string, error) {
	params := openai.ChatCompletionNewParams{Model: shared.ChatModel(o.cfg.Model)}
	if req.System != "" {
		params.Messages = append(params.Messages, openai.SystemMessage(req.System))
	}
	for _, m := range req.Messages {
		switch strings.ToLower(m.Role) {
		case "system":
			params.Messages = append(params.Messages, openai.SystemMessage(m.Content))
		case "assistant":
			params.Messages = append(params.Messages, openai.AssistantMessage(m.Content))
		default:
			params.Messages = append(params.Messages, openai.UserMessage(m.Content))
		}
	}
	maxTokens := o.cfg.MaxTokens
	if req.MaxTokens > 0 {
		maxTokens = req.MaxTokens
	}
	params.MaxTokens = openai.Int(int64(maxTokens))
	temp := o.cfg.Temperature
	if req.Temperature != nil {
		temp = *req.Temperature
	}
	if temp >= 0 {
		params.Temperature = openai.Float(temp)
	}
	if useJSON {
		params.ResponseFormat = openai.ChatCompletionNewParamsResponseFormatUnion{
			OfJSONObject: &shared.ResponseFormatJSONObjectParam{},
		}
	}

	eb := &errorBody{}
	ctx = context.WithValue(ctx, errorBodyKey{}, eb)
	res, err := o.client.Chat.Completions.New(ctx, params)
	if err != nil {
		return "", describe(ctx, err, eb)
	}
	if res == nil || len(res.Choices) == 0 {
		return "", fmt.Errorf("%w: no choices", ErrEmptyReply)
	}
	content := strings.TrimSpace(res.Choices[0].Message.Content)
	if content == "" {
		if r := strings.TrimSpace(res.Choices[0].Message.Refusal); r != "" {
			return "", fmt.Errorf("%w: model refused: %s", ErrEmptyReply, clip(r, 200))
		}
		return "", fmt.Errorf("%w: empty message content (finish_reason %q)", ErrEmptyReply, res.Choices[0].FinishReason)
	}
	return content, nil
}

// HTTPError is a non-2xx answer from the server. Body is a bounded prefix of
// the response body.
type HTTPError struct {
	StatusCode int
	Body       string
}

func (e *HTTPError) Error() string {
	msg := fmt.Sprintf("HTTP %d %s", e.StatusCode, http.StatusText(e.StatusCode))
	if b := strings.TrimSpace(e.Body); b != "" {
		msg += ": " + clip(oneLine(b), 300)
	}
	return msg
}

type errorBodyKey struct{}

// errorBody receives the status and body of a failed response from the
// middleware, so errors can quote the server even when its body is not
// OpenAI's error JSON.
type errorBody struct {
	status int
	body   []byte
}

const maxErrorBody = 8 << 10

func captureErrorBody(req *http.Request, next option.MiddlewareNext) (*http.Response, error) {
	res, err := next(req)
	if err != nil || res == nil || res.StatusCode < 400 {
		return res, err
	}
	eb, _ := req.Context().Value(errorBodyKey{}).(*errorBody)
	if eb == nil {
		return res, err
	}
	b, rerr := io.ReadAll(io.LimitReader(res.Body, maxErrorBody))
	rest, _ := io.ReadAll(res.Body)
	_ = res.Body.Close()
	res.Body = io.NopCloser(bytes.NewReader(append(append([]byte{}, b...), rest...)))
	if rerr == nil {
		eb.status = res.StatusCode
		eb.body = b
	}
	return res, err
}

func describe(ctx context.Context, err error, eb *errorBody) error {
	var apiErr *openai.Error
	if errors.As(err, &apiErr) {
		body := string(eb.body)
		if body == "" {
			body = apiErr.Message
		}
		return &HTTPError{StatusCode: apiErr.StatusCode, Body: body}
	}
	if eb.status != 0 {
		// The SDK failed to decode the error body but the status is known.
		return &HTTPError{StatusCode: eb.status, Body: string(eb.body)}
	}
	if ctxErr := ctx.Err(); ctxErr != nil && !errors.Is(err, ctxErr) {
		return fmt.Errorf("%w (%v)", ctxErr, err)
	}
	return err
}

// rejectsJSONMode reports whether err is an HTTP 400 whose body mentions
// response_format or json.
func rejectsJSONMode(err error) bool {
	var h *HTTPError
	if !errors.As(err, &h) || h.StatusCode != http.StatusBadRequest {
		return false
	}
	b := strings.ToLower(h.Body)
	return strings.Contains(b, "response_format") || strings.Contains(b, "json")
}

// ask runs one task call: it wraps the client's error with the task name and
// turns an empty (or think-only) reply into ErrEmptyReply, whatever Client
// produced it.
func ask(ctx context.Context, c Client, task string, req Request) (string, error) {
	raw, err := c.Complete(ctx, req)
	if err != nil {
		return "", fmt.Errorf("llm: %s: %w", task, err)
	}
	if strings.TrimSpace(stripThink(raw)) == "" {
		return "", fmt.Errorf("llm: %s: %w", task, ErrEmptyReply)
	}
	return raw, nil
}

// prompt is a request of one system prompt and one user message.
func prompt(system, user string) Request {
	return Request{System: system, Messages: []Message{{Role: "user", Content: user}}}
}

// askArray asks for task's reply and reads it as a JSON array (an object
// that wraps exactly one array counts as that array).
func askArray(ctx context.Context, c Client, task string, req Request) ([]any, error) {
	raw, err := ask(ctx, c, task, req)
	if err != nil {
		return nil, err
	}
	v, err := ParseValue(raw, 0)
	if err != nil {
		return nil, fmt.Errorf("llm: %s: parse reply: %w", task, err)
	}
	arr, err := unwrapArray(v)
	if err != nil {
		return nil, fmt.Errorf("llm: %s: parse reply: %w", task, err)
	}
	return arr, nil
}
