package openai

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"github.com/odekmem/odekmem/internal/textutil"
	"io"
	"net/http"
	"strings"
	"sync/atomic"
	"time"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/shared"

	"github.com/odekmem/odekmem/memcore/llm"
)

// ChatConfig configures NewChat. Nothing is read from OPENAI_* environment
// variables: what is not set here is not sent.
type ChatConfig struct {
	// BaseURL of an OpenAI-compatible API, e.g. "http://localhost:11434/v1".
	// Required.
	BaseURL string
	// APIKey; empty is sent as "unused" (local servers ignore it). The key
	// never appears in errors.
	APIKey string
	// Model name. Required.
	Model string
	// MaxTokens per reply; 0 means 1024. A Request's MaxTokens overrides it.
	MaxTokens int
	// Temperature is sent on every request unless negative (negative omits
	// the field and leaves the server default, which some reasoning models
	// require). A Request's Temperature overrides it.
	Temperature float64
	// Timeout bounds each Complete call; 0 means 30 seconds.
	Timeout time.Duration
	// HTTPClient is optional; nil uses http.DefaultClient.
	HTTPClient *http.Client
}

// chat is an llm.Client over openai-go v3 chat completions. It is safe for
// concurrent use.
type chat struct {
	cfg     ChatConfig
	client  openai.Client
	timeout time.Duration
	// noJSONMode is set once the server has rejected response_format; the
	// client never sends it again.
	noJSONMode atomic.Bool
}

var _ llm.Client = (*chat)(nil)

// NewChat validates cfg and returns the client: an llm.Client over
// openai-go v3 chat completions, safe for concurrent use. It does not contact the
// server. Base URL, key and retry policy (no retries) are passed to
// openai-go explicitly.
func NewChat(cfg ChatConfig) (llm.Client, error) {
	if strings.TrimSpace(cfg.BaseURL) == "" {
		return nil, errors.New("openai: new chat: base URL is required")
	}
	if strings.TrimSpace(cfg.Model) == "" {
		return nil, fmt.Errorf("openai: new chat at %s: model is required", cfg.BaseURL)
	}
	if cfg.MaxTokens <= 0 {
		cfg.MaxTokens = 1024
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = 30 * time.Second
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
	return &chat{cfg: cfg, client: openai.NewClient(opts...), timeout: cfg.Timeout}, nil
}

// jsonModeDisabled reports whether the server rejected response_format
// and the client stopped sending it.
func (o *chat) jsonModeDisabled() bool { return o.noJSONMode.Load() }

// Complete sends one chat completion and returns the first choice's content,
// trimmed. Errors name the step, the model and the base URL.
func (o *chat) Complete(ctx context.Context, req llm.Request) (string, error) {
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

func (o *chat) wrap(step string, err error) error {
	return fmt.Errorf("openai: %s (model %q at %s): %w", step, o.cfg.Model, o.cfg.BaseURL, err)
}

func (o *chat) call(ctx context.Context, req llm.Request, useJSON bool) (string, error) {
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
			return "", fmt.Errorf("%w: model refused: %s", ErrEmptyReply, textutil.Clip(r, 200))
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
		msg += ": " + textutil.Clip(textutil.OneLine(b), 300)
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
