package mcpserver

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// MaxMessageBytes bounds one JSON-RPC message: a line over stdio, a
// request body over HTTP. The largest valid call (a memory of
// memcore.ToolMaxText characters, every one escaped) is well under it.
const MaxMessageBytes = 1 << 20

// maxDepth bounds how deeply a message's JSON may nest. MCP messages nest
// a handful of levels.
const maxDepth = 64

// lineTransport is the stdio transport: newline-delimited JSON-RPC, as the
// SDK's IOTransport, except that a line that is not a valid message — bad
// JSON, nested deeper than maxDepth, longer than MaxMessageBytes, a batch,
// not JSON-RPC — is answered with a JSON-RPC error and the server keeps
// reading. (The SDK's transport ends the connection on the first such
// line, which ends `odekmem mcp`.)
type lineTransport struct {
	r io.Reader
	w io.Writer
}

// Connect implements mcp.Transport.
func (t *lineTransport) Connect(context.Context) (mcp.Connection, error) {
	c := &lineConn{w: t.w, incoming: make(chan lineMsg), closed: make(chan struct{})}
	go c.readLoop(t.r)
	return c, nil
}

type lineMsg struct {
	msg jsonrpc.Message
	err error
}

type lineConn struct {
	wmu sync.Mutex // one message per write, whole
	w   io.Writer

	incoming  chan lineMsg
	closeOnce sync.Once
	closed    chan struct{}
}

// readLoop reads lines until the input ends. A read of stdin cannot be
// interrupted portably, so after Close it stops at the next line.
func (c *lineConn) readLoop(r io.Reader) {
	br := bufio.NewReaderSize(r, 64<<10)
	for {
		line, tooLong, err := readLine(br, MaxMessageBytes)
		if tooLong || len(bytes.TrimSpace(line)) > 0 {
			msg, bad := decodeLine(line, tooLong)
			if bad != nil {
				if werr := c.writeRaw(bad); werr != nil {
					err = werr
				}
			} else {
				select {
				case c.incoming <- lineMsg{msg: msg}:
				case <-c.closed:
					return
				}
			}
		}
		if err != nil {
			select {
			case c.incoming <- lineMsg{err: err}:
			case <-c.closed:
			}
			return
		}
	}
}

// readLine reads one line without its newline. A line longer than limit is
// read to its end and dropped: tooLong is set and line is nil.
func readLine(br *bufio.Reader, limit int) (line []byte, tooLong bool, err error) {
	for {
		chunk, err := br.ReadSlice('\n')
		if !tooLong {
			if len(line)+len(chunk) > limit+1 { // +1: the newline
				tooLong, line = true, nil
			} else {
				line = append(line, chunk...)
			}
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		return bytes.TrimRight(line, "\r\n"), tooLong, err
	}
}

// decodeLine decodes one line, or returns the JSON-RPC error response to
// write back for it.
func decodeLine(line []byte, tooLong bool) (jsonrpc.Message, []byte) {
	switch {
	case tooLong:
		return nil, errorLine(nil, jsonrpc.CodeInvalidRequest, fmt.Sprintf("message too large: at most %d bytes on one line", MaxMessageBytes))
	case depth(line) > maxDepth:
		return nil, errorLine(requestID(line), jsonrpc.CodeInvalidRequest, fmt.Sprintf("invalid request: JSON nested more than %d levels deep", maxDepth))
	case !json.Valid(line):
		return nil, errorLine(nil, jsonrpc.CodeParseError, "parse error: the line is not valid JSON")
	case bytes.HasPrefix(bytes.TrimSpace(line), []byte("[")):
		return nil, errorLine(nil, jsonrpc.CodeInvalidRequest, "invalid request: JSON-RPC batches are not supported")
	}
	msg, err := jsonrpc.DecodeMessage(line)
	if err != nil {
		return nil, errorLine(requestID(line), jsonrpc.CodeInvalidRequest, "invalid request: "+err.Error())
	}
	return msg, nil
}

// depth is how deeply the JSON in b nests objects and arrays.
func depth(b []byte) int {
	d, deepest, inString, escaped := 0, 0, false, false
	for _, c := range b {
		switch {
		case inString:
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
		case c == '"':
			inString = true
		case c == '{' || c == '[':
			d++
			deepest = max(deepest, d)
		case c == '}' || c == ']':
			d--
		}
	}
	return deepest
}

// requestID is the id of the request on line when it has a usable one
// (a string or a number), so that the client waiting for it gets its
// answer; nil otherwise.
func requestID(line []byte) json.RawMessage {
	var m struct {
		ID json.RawMessage `json:"id"`
	}
	if json.Unmarshal(line, &m) != nil {
		return nil
	}
	var v any
	if json.Unmarshal(m.ID, &v) != nil {
		return nil
	}
	switch v.(type) {
	case string, float64:
		return m.ID
	}
	return nil
}

// errorLine is a JSON-RPC error response for id (null when nil).
func errorLine(id json.RawMessage, code int64, message string) []byte {
	if id == nil {
		id = json.RawMessage("null")
	}
	b, _ := json.Marshal(struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   jsonrpc.Error   `json:"error"`
	}{"2.0", id, jsonrpc.Error{Code: code, Message: message}})
	return b
}

func (c *lineConn) writeRaw(b []byte) error {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	_, err := c.w.Write(append(b, '\n'))
	return err
}

// Read implements mcp.Connection.
func (c *lineConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	select {
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-c.closed:
		return nil, io.EOF
	case m := <-c.incoming:
		return m.msg, m.err
	}
}

// Write implements mcp.Connection.
func (c *lineConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	b, err := jsonrpc.EncodeMessage(msg)
	if err != nil {
		return err
	}
	return c.writeRaw(b)
}

// Close implements mcp.Connection.
func (c *lineConn) Close() error {
	c.closeOnce.Do(func() { close(c.closed) })
	return nil
}

// SessionID implements mcp.Connection: a stdio connection has none.
func (c *lineConn) SessionID() string { return "" }
