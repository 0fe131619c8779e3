//go:build !unix

package mcpconn

import (
	"os/exec"
	"time"
)

// On Windows (and other non-POSIX systems) there are no process groups to
// signal and no SIGTERM. CrewAI (the MCP SDK's stdio client,
// crewai-semantics.md §6) resolves the command through the SDK's helper
// and puts the child in a Job Object, so terminating the job ends the whole
// tree. crewbench does not create a Job Object: it ends the direct child
// with TerminateProcess (os.Process.Kill), after the same stdin-close grace
// period; grandchildren that a wrapper (npx, uv) started may outlive it.

// startOwnGroup leaves the child in crewbench's process tree.
func startOwnGroup(*exec.Cmd) {}

// terminateGroup ends the child: Windows has no graceful signal for a
// console process that crewbench could send, so it is killed outright.
func terminateGroup(cmd *exec.Cmd) { _ = cmd.Process.Kill() }

// killGroup ends the child.
func killGroup(cmd *exec.Cmd) { _ = cmd.Process.Kill() }

// reapGroup has no group to reap.
func reapGroup(*exec.Cmd, time.Duration) {}
