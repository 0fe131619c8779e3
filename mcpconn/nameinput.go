package mcpconn

import "crewbench/names"

// NameInput is the names.Input that names the spec's tool remote, for UIs
// that explain a name step by step (names.Explain) or show it under another
// host's scheme. It is the input discovery itself names tools with.
func NameInput(spec ServerSpec, remote string) names.Input { return nameInput(spec, remote) }
