// Package project opens the crews CrewAI users already have and turns each
// into one plain model: a JSON-first crew (crew.jsonc + agents/<name>.jsonc),
// a classic project (config/agents.yaml, config/tasks.yaml and the literal
// calls in crew.py), an mcpServers file (Claude Desktop, Claude Code,
// Cursor, VS Code, Gemini CLI), or a crew written in crewbench.yaml, plus
// the optional crewbench.yaml overlay (OVERLAY.md) and the project's .env.
//
// Every value remembers the file, line and column it was written at
// (Pos, Positions). Values crewbench cannot read without running Python
// or asking a service are kept as Unresolved entries with their source
// text, never dropped, and can be supplied in the overlay. Errors use
// CrewAI's exact texts (crewai-formats.md §1) with the position first.
//
// Nothing here runs project code, connects to a server or calls an LLM:
// the package reads files only. It imports crewbench/mcpconn only for the
// ServerSpec types it produces, and never mcp-go directly.
package project
