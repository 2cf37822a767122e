//go:build !unix

package agenthook

import "os/exec"

func detach(cmd *exec.Cmd) {}
