//go:build tools

// This file pins the project's dependencies in go.mod while the packages that
// use them are being written, so parallel work never races on `go get`.
// Delete an import here once real code imports it.
package main

import (
	_ "github.com/anthropics/anthropic-sdk-go/v2"
	_ "github.com/charmbracelet/bubbles/list"
	_ "github.com/charmbracelet/bubbletea"
	_ "github.com/charmbracelet/lipgloss"
	_ "github.com/charmbracelet/x/exp/teatest"
	_ "github.com/google/cel-go/cel"
	_ "github.com/google/go-cmp/cmp"
	_ "github.com/mark3labs/mcp-go/client"
	_ "github.com/mark3labs/mcp-go/server"
	_ "github.com/muesli/termenv"
	_ "github.com/openai/openai-go/v3"
	_ "github.com/sahilm/fuzzy"
	_ "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	_ "golang.org/x/text/unicode/norm"
	_ "google.golang.org/protobuf/proto"
	_ "gopkg.in/yaml.v3"
)
