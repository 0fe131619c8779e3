package mcpconn

import "sync/atomic"

// SelfCommand is the command name that means crewbench itself: servers
// declared as `crewbench fixture NAME` or `crewbench serve …`.
const SelfCommand = "crewbench"

// SelfExecutable is the running crewbench binary when "crewbench" is not
// on PATH (main sets it at start-up, before any server starts): a stdio
// server whose command is SelfCommand then starts this binary instead of
// failing to spawn, in every command alike. "" leaves the command to PATH.
// Names are still derived from the declared command.
var SelfExecutable string

var selfUses atomic.Int64

// stdioProgram is the program a stdio spec starts: Executable when set,
// SelfExecutable for SelfCommand (see there), else Command.
func stdioProgram(spec ServerSpec) string {
	switch {
	case spec.Executable != "":
		return spec.Executable
	case spec.Command == SelfCommand && SelfExecutable != "":
		selfUses.Add(1)
		return SelfExecutable
	}
	return spec.Command
}

// SelfUses counts the servers started as SelfExecutable, so a command can
// tell the user which crewbench ran.
func SelfUses() int64 { return selfUses.Load() }
