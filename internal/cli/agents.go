package cli

import (
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/odekmem/odekmem/internal/agenthook"
	"github.com/odekmem/odekmem/internal/mcpserver"
)

// The verbs that connect odekmem to other agents (MCP server, hooks,
// setup, the long-lived serve process). The logic lives in
// internal/mcpserver, internal/agenthook and internal/agentsetup.

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }

func cmdMCP(c *ctx) error {
	if len(c.p.pos) > 0 {
		return usagef("mcp takes no arguments (got %q)", c.p.pos[0])
	}
	project := c.p.flags["project"]
	if project == "" {
		wd, _ := os.Getwd()
		project = agenthook.ProjectRoot(wd)
	} else {
		project = agenthook.ProjectRoot(project)
	}
	srv := mcpserver.New(c.store, mcpserver.Options{Project: project, Version: Version})
	addr := c.p.flags["http"]
	if addr == "" {
		if c.p.bools["allow-remote"] || c.p.flags["token-file"] != "" {
			return usagef("--allow-remote and --token-file need --http ADDR")
		}
		t := &mcp.IOTransport{Reader: io.NopCloser(c.env.Stdin), Writer: nopWriteCloser{c.env.Stdout}}
		err := srv.MCP().Run(c, t)
		if err != nil && (c.Err() != nil || strings.Contains(err.Error(), "EOF") || strings.Contains(err.Error(), "closed")) {
			return nil // the client went away
		}
		return err
	}
	token := strings.TrimSpace(c.env.Getenv("ODEKMEM_MCP_TOKEN"))
	if f := c.p.flags["token-file"]; f != "" {
		b, err := os.ReadFile(f)
		if err != nil {
			return fmt.Errorf("--token-file: %w", err)
		}
		token = strings.TrimSpace(string(b))
		if token == "" {
			return fmt.Errorf("--token-file %s is empty", f)
		}
	}
	o := mcpserver.HTTPOptions{Addr: addr, AllowRemote: c.p.bools["allow-remote"], Token: token,
		Ready: func(a string) { fmt.Fprintf(c.env.Stderr, "odekmem: MCP server listening on http://%s/\n", a) }}
	if err := mcpserver.CheckHTTP(o); err != nil {
		return usagef("%s", err.Error())
	}
	return srv.ServeHTTP(c, o)
}
