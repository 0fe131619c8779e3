package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"crewbench/mcpconn"
	"crewbench/names"
	"crewbench/session"
)

// namesOpts are the flags shared by every `crewbench names` form.
type namesOpts struct {
	json    bool
	explain bool
	scheme  string
	batch   bool
}

func newNamesCmd() *cobra.Command {
	o := &namesOpts{}
	cmd := &cobra.Command{
		Use:   "names",
		Short: "Show the exact name the LLM sees for a tool, as CrewAI 1.15 builds it",
		Long: `names shows how CrewAI 1.15 names a tool for the LLM: the LLM-visible name
(first line), the display name CrewAI keeps on the tool object, and what is
wrong with it (hashed, starts with a digit, machine paths, IP hosts, …).

  crewbench names tool "Unit Converter"
  crewbench names stdio --tool lookup_stock -- python servers/inventory.py
  crewbench names url http://localhost:8765/mcp --tool lookup_stock [--sse]
  crewbench names ref "https://mcp.example.com/mcp#lookup_stock" --remote-tool lookup_stock
  crewbench names ref notion#search --amp-url https://mcp.notion.so/sse --remote-tool search

--explain adds the derivation step by step, --scheme shows another host's
naming (adapter, claude-code, crush, mcphost), --json prints JSON.

--batch reads JSON Lines on stdin and writes one JSON line per input line:
  in:  {"name": …, "dedupe_counter": n}                      plain tool
       {"command": …, "args": […], "tool": …}                 stdio
       {"url": …, "transport": "http"|"sse", "tool": …}       HTTP / SSE
       {"ref": …, "remote_tool": …, "amp_config_url": …}      string ref
       ("server": the config key, for the other hosts' schemes)
  out: {"llm_name": …, "display_name": …, "status": "ok"|"skipped"|"not_selected",
        "diagnostics": [{"code": …, "message": …}]}
       or {"error": …} for a line that cannot be read; processing continues.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if !o.batch {
				return cmd.Help()
			}
			scheme, err := names.ParseScheme(o.scheme)
			if err != nil {
				return err
			}
			return runNamesBatch(cmd, o, scheme)
		},
	}
	pf := cmd.PersistentFlags()
	pf.BoolVar(&o.json, "json", false, "print JSON (one object per tool)")
	pf.BoolVar(&o.explain, "explain", false, "add the derivation step by step")
	pf.StringVar(&o.scheme, "scheme", string(names.SchemeCrewAI), "naming scheme: crewai, adapter, claude-code, crush or mcphost")
	_ = cmd.RegisterFlagCompletionFunc("scheme", func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		var out []string
		for _, s := range names.Schemes() {
			out = append(out, string(s))
		}
		return out, cobra.ShellCompDirectiveNoFileComp
	})
	cmd.Flags().BoolVar(&o.batch, "batch", false, "read JSON Lines on stdin, write one JSON line per input line")

	cmd.AddCommand(newNamesToolCmd(o), newNamesStdioCmd(o), newNamesURLCmd(o), newNamesRefCmd(o))
	return cmd
}

func newNamesToolCmd(o *namesOpts) *cobra.Command {
	var dedupe int
	cmd := &cobra.Command{
		Use:   "tool NAME...",
		Short: "Name a plain tool (@tool(\"…\") or a BaseTool's name)",
		Example: `  crewbench names tool "Unit Converter"
  crewbench names tool getForecast get_forecast     # two tools: shows the collision`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			ins := make([]names.Input, len(args))
			for i, a := range args {
				ins[i] = names.Input{Kind: names.KindTool, Name: a, Dedupe: dedupe}
			}
			return printNames(cmd, o, ins)
		},
	}
	cmd.Flags().IntVar(&dedupe, "dedupe", 0, "name of the n-th tool (n ≥ 2) with this LLM name under native function calling")
	return cmd
}

func newNamesStdioCmd(o *namesOpts) *cobra.Command {
	var tools []string
	var server string
	cmd := &cobra.Command{
		Use:   "stdio --tool TOOL -- COMMAND [ARG...]",
		Short: "Name a tool of an MCPServerStdio(command, args)",
		Example: `  crewbench names stdio --tool lookup_stock -- python servers/inventory.py
  crewbench names stdio --tool list_allowed_directories -- npx -y @modelcontextprotocol/server-filesystem ./data`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(tools) == 0 {
				return errors.New("stdio: --tool is required (the remote tool's name as the server lists it)")
			}
			var ins []names.Input
			for _, t := range tools {
				ins = append(ins, names.Input{Kind: names.KindStdio, Command: args[0], Args: args[1:], Tool: t, Server: server})
			}
			return printNames(cmd, o, ins)
		},
	}
	cmd.Flags().StringArrayVar(&tools, "tool", nil, "remote tool name (repeat for several tools)")
	cmd.Flags().StringVar(&server, "server", "", "the server's config key, for --scheme claude-code, crush or mcphost")
	cmd.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		return fmt.Errorf("%w (put the server command after --, e.g. names stdio --tool T -- npx -y pkg)", err)
	})
	return cmd
}

func newNamesURLCmd(o *namesOpts) *cobra.Command {
	var tools []string
	var sse bool
	var server string
	cmd := &cobra.Command{
		Use:     "url URL --tool TOOL [--sse]",
		Short:   "Name a tool of an MCPServerHTTP(url) or MCPServerSSE(url)",
		Example: `  crewbench names url http://localhost:8765/mcp --tool lookup_stock`,
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(tools) == 0 {
				return errors.New("url: --tool is required (the remote tool's name as the server lists it)")
			}
			kind := names.KindHTTP
			if sse {
				kind = names.KindSSE
			}
			var ins []names.Input
			for _, t := range tools {
				ins = append(ins, names.Input{Kind: kind, URL: args[0], Tool: t, Server: server})
			}
			return printNames(cmd, o, ins)
		},
	}
	cmd.Flags().StringArrayVar(&tools, "tool", nil, "remote tool name (repeat for several tools)")
	cmd.Flags().BoolVar(&sse, "sse", false, "the server is an MCPServerSSE (naming is the same)")
	cmd.Flags().StringVar(&server, "server", "", "the server's config key, for --scheme claude-code, crush or mcphost")
	return cmd
}

func newNamesRefCmd(o *namesOpts) *cobra.Command {
	var tools []string
	var ampURL string
	cmd := &cobra.Command{
		Use:   "ref REF --remote-tool TOOL [--amp-url URL]",
		Short: "Name a tool reached through a string in Agent.mcps (https://…#tool or an AMP slug)",
		Example: `  crewbench names ref "https://mcp.example.com/mcp#lookup_stock" --remote-tool lookup_stock
  crewbench names ref notion#search --amp-url https://mcp.notion.so/sse --remote-tool search`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(tools) == 0 {
				return errors.New("ref: --remote-tool is required (a tool name the server lists)")
			}
			var ins []names.Input
			for _, t := range tools {
				ins = append(ins, names.Input{Kind: names.KindRef, Ref: args[0], Tool: t, AMPConfigURL: ampURL})
			}
			return printNames(cmd, o, ins)
		},
	}
	cmd.Flags().StringArrayVar(&tools, "remote-tool", nil, "remote tool name (repeat for several tools)")
	cmd.Flags().StringVar(&ampURL, "amp-url", "", "for AMP slugs: the server URL the CrewAI+ API returns for the slug")
	return cmd
}

// printNames resolves the inputs, adds collision diagnostics across them
// and prints the results.
func printNames(cmd *cobra.Command, o *namesOpts, ins []names.Input) error {
	scheme, err := names.ParseScheme(o.scheme)
	if err != nil {
		return err
	}
	results := make([]names.Result, 0, len(ins))
	for _, in := range ins {
		in.Scheme = scheme
		markNamesInputSecrets(in)
		r, err := names.Resolve(in)
		if err != nil {
			return err
		}
		results = append(results, r)
	}
	results = names.WithCollisions(results)
	w := cmd.OutOrStdout()
	if o.json {
		enc := newJSONEncoder(w)
		for _, r := range results {
			if err := enc.Encode(namesJSON(r, o.explain)); err != nil {
				return fmt.Errorf("write: %w", err)
			}
		}
		return nil
	}
	var b strings.Builder
	for i, r := range results {
		if i > 0 {
			b.WriteByte('\n')
		}
		writeNamesText(&b, r, o.explain)
	}
	if _, err := io.WriteString(w, b.String()); err != nil {
		return fmt.Errorf("write: %w", err)
	}
	return nil
}

// writeNamesText renders one result for people: the LLM-visible name on the
// first line (or the golden-vector sentinel when the LLM never sees it),
// then the display name, the server, the diagnostics and the derivation.
func writeNamesText(b *strings.Builder, r names.Result, explain bool) {
	switch r.Status {
	case names.StatusSkipped:
		b.WriteString("<skipped>\n")
	case names.StatusNotSelected:
		b.WriteString("<not-selected>\n")
	default:
		fmt.Fprintf(b, "%s\n", textValue(r.LLMName))
		fmt.Fprintf(b, "  display name  %s\n", textValue(r.DisplayName))
	}
	if r.ServerName != "" {
		label := "server name "
		if r.Scheme != names.SchemeCrewAI && r.Scheme != names.SchemeAdapter {
			label = "server key  "
		}
		fmt.Fprintf(b, "  %s  %s\n", label, textValue(r.ServerName))
	}
	if r.Status == names.StatusOK && r.CallName != "" && r.CallName != r.Input.Tool {
		fmt.Fprintf(b, "  call name     %s  (sent to tools/call)\n", textValue(r.CallName))
	}
	if r.Scheme != names.SchemeCrewAI {
		fmt.Fprintf(b, "  scheme        %s\n", r.Scheme)
	}
	for _, d := range r.Diagnostics {
		fmt.Fprintf(b, "  %-7s %s: %s\n", d.Severity, d.Code, d.Message)
		fmt.Fprintf(b, "          fix: %s\n", d.Fix)
	}
	if explain {
		b.WriteString("  derivation:\n")
		for _, line := range strings.SplitAfter(r.Explanation.String(), "\n") {
			if line != "" {
				b.WriteString("    " + line)
			}
		}
	}
}

// textValue shows a name as is, or quoted when it is empty or holds
// characters that would break the line layout (control characters,
// leading or trailing spaces).
func textValue(s string) string {
	if s == "" || strings.TrimSpace(s) != s || strings.ContainsFunc(s, func(r rune) bool { return r < 0x20 || r == 0x7f }) {
		return strconv.Quote(s)
	}
	return s
}

// namesOutput is the JSON shape of one result, exactly as issue 2 lists it;
// explanation is added only with --explain.
type namesOutput struct {
	LLMName     string            `json:"llm_name"`
	DisplayName string            `json:"display_name"`
	Status      names.Status      `json:"status"`
	Diagnostics []namesDiagOutput `json:"diagnostics"`
	Explanation []names.Step      `json:"explanation,omitempty"`
}

// namesDiagOutput is one diagnostic in JSON: the message carries the fix.
type namesDiagOutput struct {
	Code    names.Code `json:"code"`
	Message string     `json:"message"`
}

func namesJSON(r names.Result, explain bool) namesOutput {
	out := namesOutput{LLMName: r.LLMName, DisplayName: r.DisplayName, Status: r.Status, Diagnostics: []namesDiagOutput{}}
	for _, d := range r.Diagnostics {
		out.Diagnostics = append(out.Diagnostics, namesDiagOutput{
			Code:    d.Code,
			Message: fmt.Sprintf("%s: %s (fix: %s)", d.Severity, d.Message, d.Fix),
		})
	}
	if explain {
		out.Explanation = r.Explanation.Steps
	}
	return out
}

func newJSONEncoder(w io.Writer) *json.Encoder {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false) // names contain < > & as users wrote them
	return enc
}

// maxBatchLine bounds one input line; a longer line gets an error object
// and is skipped without being held in memory.
const maxBatchLine = 16 << 20

// runNamesBatch answers JSON Lines on stdin with JSON Lines on stdout, one
// output line per input line, in order. Output is flushed whenever no more
// input is buffered, so a script can write a line and wait for its answer.
func runNamesBatch(cmd *cobra.Command, o *namesOpts, scheme names.Scheme) error {
	in := bufio.NewReaderSize(cmd.InOrStdin(), 64<<10)
	out := bufio.NewWriter(cmd.OutOrStdout())
	enc := newJSONEncoder(out)
	ctx := cmd.Context()
	for n := 1; ; n++ {
		if ctx != nil && ctx.Err() != nil {
			_ = out.Flush()
			return ctx.Err()
		}
		line, tooLong, err := readBatchLine(in)
		if err != nil && !errors.Is(err, io.EOF) {
			_ = out.Flush()
			return fmt.Errorf("names --batch: reading stdin: %w", err)
		}
		if errors.Is(err, io.EOF) && line == nil && !tooLong {
			break
		}
		var v any
		switch {
		case tooLong:
			v = batchError{Error: fmt.Sprintf("line %d: longer than %d bytes", n, maxBatchLine)}
		default:
			v = batchAnswer(n, line, scheme, o.explain)
		}
		if werr := enc.Encode(v); werr != nil {
			return fmt.Errorf("names --batch: write: %w", werr)
		}
		if in.Buffered() == 0 {
			if ferr := out.Flush(); ferr != nil {
				return fmt.Errorf("names --batch: write: %w", ferr)
			}
		}
		if errors.Is(err, io.EOF) {
			break
		}
	}
	if err := out.Flush(); err != nil {
		return fmt.Errorf("names --batch: write: %w", err)
	}
	return nil
}

// readBatchLine returns the next line without its "\n" (and "\r"). At the
// end of input it returns io.EOF, with the last unterminated line if any.
// A line longer than maxBatchLine is consumed and reported as tooLong.
func readBatchLine(r *bufio.Reader) (line []byte, tooLong bool, err error) {
	var buf []byte
	for {
		chunk, err := r.ReadSlice('\n')
		if !tooLong {
			if len(buf)+len(chunk) > maxBatchLine+2 {
				tooLong, buf = true, nil
			} else {
				buf = append(buf, chunk...)
			}
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if err != nil && !errors.Is(err, io.EOF) {
			return nil, false, err
		}
		if tooLong {
			return nil, true, err
		}
		if len(buf) == 0 && err != nil {
			return nil, false, err
		}
		buf = bytes.TrimSuffix(buf, []byte("\n"))
		buf = bytes.TrimSuffix(buf, []byte("\r"))
		if buf == nil {
			buf = []byte{}
		}
		return buf, false, err
	}
}

type batchError struct {
	Error string `json:"error"`
}

// batchInput is one --batch input line (issue 2 item 5). kind is optional;
// without it the form is told by which of name/command/url/ref is present.
type batchInput struct {
	Kind          *string  `json:"kind"`
	Name          *string  `json:"name"`
	DedupeCounter int      `json:"dedupe_counter"`
	Command       *string  `json:"command"`
	Args          []string `json:"args"`
	Tool          *string  `json:"tool"`
	URL           *string  `json:"url"`
	Transport     *string  `json:"transport"`
	Ref           *string  `json:"ref"`
	RemoteTool    *string  `json:"remote_tool"`
	AMPConfigURL  *string  `json:"amp_config_url"`
	Server        *string  `json:"server"`
}

// batchAnswer turns one input line into its output object.
func batchAnswer(n int, line []byte, scheme names.Scheme, explain bool) any {
	in, err := parseBatchInput(line)
	if err != nil {
		return batchError{Error: fmt.Sprintf("line %d: %v", n, err)}
	}
	in.Scheme = scheme
	markNamesInputSecrets(in)
	r, err := names.Resolve(in)
	if err != nil {
		return batchError{Error: fmt.Sprintf("line %d: %v", n, err)}
	}
	return namesJSON(r, explain)
}

// markNamesInputSecrets marks the passwords of the input's URLs
// process-wide, in every form a name gives them, so the output hides them
// as it does for a server crewbench connected to.
func markNamesInputSecrets(in names.Input) {
	for _, u := range []string{in.URL, in.Ref, in.AMPConfigURL} {
		session.AddSecretValues(mcpconn.URLSecrets(u)...)
	}
}

func parseBatchInput(line []byte) (names.Input, error) {
	if len(bytes.TrimSpace(line)) == 0 {
		return names.Input{}, errors.New("empty line (want one JSON object)")
	}
	var b batchInput
	if err := json.Unmarshal(line, &b); err != nil {
		return names.Input{}, fmt.Errorf("not a JSON object of the names input shape: %v", err)
	}
	str := func(p *string) string {
		if p == nil {
			return ""
		}
		return *p
	}
	kind, err := batchKind(b)
	if err != nil {
		return names.Input{}, err
	}
	in := names.Input{Kind: kind, Dedupe: b.DedupeCounter, Server: str(b.Server)}
	tool := str(b.Tool)
	if tool == "" {
		tool = str(b.RemoteTool)
	}
	switch kind {
	case names.KindTool:
		in.Name = str(b.Name)
	case names.KindStdio:
		in.Command, in.Args, in.Tool = str(b.Command), b.Args, tool
	case names.KindHTTP, names.KindSSE:
		in.URL, in.Tool = str(b.URL), tool
	case names.KindRef:
		if b.RemoteTool != nil {
			tool = *b.RemoteTool
		}
		in.Ref, in.Tool, in.AMPConfigURL = str(b.Ref), tool, str(b.AMPConfigURL)
	}
	return in, nil
}

// batchKind decides the form of a batch line.
func batchKind(b batchInput) (names.Kind, error) {
	if b.Kind != nil {
		switch *b.Kind {
		case "tool":
			return names.KindTool, nil
		case "stdio":
			return names.KindStdio, nil
		case "http", "sse":
			return urlKind(b, names.Kind(*b.Kind))
		case "ref", "string_ref":
			return names.KindRef, nil
		}
		return "", fmt.Errorf(`unknown "kind" %q (want tool, stdio, http, sse or ref)`, *b.Kind)
	}
	var present []string
	for _, f := range []struct {
		key string
		set bool
	}{{"name", b.Name != nil}, {"command", b.Command != nil}, {"url", b.URL != nil}, {"ref", b.Ref != nil}} {
		if f.set {
			present = append(present, f.key)
		}
	}
	if len(present) != 1 {
		return "", fmt.Errorf(`want exactly one of "name", "command", "url" or "ref", got %d (%s)`, len(present), strings.Join(present, ", "))
	}
	switch present[0] {
	case "name":
		return names.KindTool, nil
	case "command":
		return names.KindStdio, nil
	case "url":
		return urlKind(b, names.KindHTTP)
	}
	return names.KindRef, nil
}

// urlKind applies "transport" to a URL input.
func urlKind(b batchInput, def names.Kind) (names.Kind, error) {
	if b.Transport == nil {
		return def, nil
	}
	switch *b.Transport {
	case "http":
		return names.KindHTTP, nil
	case "sse":
		return names.KindSSE, nil
	}
	return "", fmt.Errorf(`unknown "transport" %q (want "http" or "sse")`, *b.Transport)
}
