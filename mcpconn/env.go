package mcpconn

import (
	"os"
	"runtime"
	"sort"
	"strings"
)

// DefaultInheritedEnv lists the only parent variables a CrewAI stdio server
// receives (MCP SDK get_default_environment, crewai-semantics.md §6): the
// POSIX list, or the Windows list when running on Windows.
var DefaultInheritedEnv = defaultInheritedEnvFor(runtime.GOOS)

// PosixInheritedEnv and WindowsInheritedEnv are the SDK's two lists.
var (
	PosixInheritedEnv   = []string{"HOME", "LOGNAME", "PATH", "SHELL", "TERM", "USER"}
	WindowsInheritedEnv = []string{"APPDATA", "HOMEDRIVE", "HOMEPATH", "LOCALAPPDATA", "PATH", "PATHEXT",
		"PROCESSOR_ARCHITECTURE", "SYSTEMDRIVE", "SYSTEMROOT", "TEMP", "USERNAME", "USERPROFILE"}
)

func defaultInheritedEnvFor(goos string) []string {
	if goos == "windows" {
		return WindowsInheritedEnv
	}
	return PosixInheritedEnv
}

// EnvSource says where one variable of a stdio server's environment came from.
type EnvSource string

// Environment sources.
const (
	EnvInherited EnvSource = "inherited" // one of DefaultInheritedEnv
	EnvSpec      EnvSource = "env"       // the server spec's env (overrides inherited)
	// EnvInheritAll is crewbench's debugging option, NOT CrewAI behaviour.
	EnvInheritAll EnvSource = "inherit_env (not CrewAI)"
)

// EnvVar is one variable of a stdio server's environment.
type EnvVar struct {
	Name   string    `json:"name"`
	Value  string    `json:"value"`
	Source EnvSource `json:"source"`
}

// StdioEnvironment returns exactly the environment CrewAI gives a stdio
// server: the DefaultInheritedEnv variables present in parent (values
// starting with "()" — exported shell functions — skipped), overlaid with
// spec.Env. With spec.InheritEnv (not CrewAI) the whole parent environment
// is used instead of the default list. parent is in os.Environ form; nil
// means os.Environ(). Nothing else leaks: a .env file's values reach the
// server only when spec.Env names them. Sorted by name.
func StdioEnvironment(spec ServerSpec, parent []string) []EnvVar {
	if parent == nil {
		parent = os.Environ()
	}
	vars := map[string]EnvVar{}
	for _, kv := range parent {
		name, value, ok := strings.Cut(kv, "=")
		if !ok || name == "" {
			continue
		}
		switch {
		case spec.InheritEnv:
			vars[name] = EnvVar{name, value, EnvInheritAll}
		case isDefaultInherited(name) && !strings.HasPrefix(value, "()"):
			vars[name] = EnvVar{name, value, EnvInherited}
		}
	}
	for name, value := range spec.Env {
		vars[name] = EnvVar{name, value, EnvSpec}
	}
	out := make([]EnvVar, 0, len(vars))
	for _, v := range vars {
		out = append(out, v)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

func isDefaultInherited(name string) bool {
	for _, n := range DefaultInheritedEnv {
		if n == name {
			return true
		}
	}
	return false
}

// EnvList renders vars as NAME=VALUE for exec.Cmd.Env.
func EnvList(vars []EnvVar) []string {
	out := make([]string, len(vars))
	for i, v := range vars {
		out[i] = v.Name + "=" + v.Value
	}
	return out
}
