package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"syscall"
	"time"

	"github.com/spf13/cobra"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"

	"crewbench/session"
)

type exportOpts struct {
	jsonOut  string
	endpoint string
	headers  []string
	content  bool
	timeout  time.Duration
	lenient  bool
	service  string
}

func newExportCmd() *cobra.Command {
	o := &exportOpts{}
	cmd := &cobra.Command{
		Use:   "export FILE (--otlp-json OUT | --otlp-endpoint URL) [--include-content] [--header K=V]...",
		Short: "Export a recorded session as OpenTelemetry spans",
		Long: `export turns a recorded session into OpenTelemetry spans following the GenAI
and MCP semantic conventions: invoke_workflow for the crew, invoke_agent per
agent task, chat per LLM call (with token usage), execute_tool per tool call
(gen_ai.tool.name is the LLM-visible name; crewbench.mcp.server and
crewbench.mcp.tool the original server and tool), tools/call per MCP attempt,
and span events for retries, guards and usage limits.

  --otlp-json OUT       write OTLP/JSON (what collectors' file receivers and
                        most trace viewers import); "-" writes to stdout
  --otlp-endpoint URL   send OTLP/HTTP protobuf to a collector: a base URL
                        (http://localhost:4318, /v1/traces is added) or the
                        full traces URL; --header K=V adds request headers
                        (e.g. Authorization for a hosted backend)

Both may be given. Prompts, replies, tool arguments and results are left out
unless --include-content; secrets are redacted either way. Exporting the same
session twice gives the same trace and span ids.`,
		Example: `  crewbench export run.jsonl --otlp-json run.otlp.json
  crewbench export run.jsonl --otlp-endpoint http://localhost:4318
  crewbench export run.jsonl --otlp-endpoint https://cloud.langfuse.com/api/public/otel/v1/traces --header "Authorization=Basic $LANGFUSE_AUTH"`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runExport(cmd, o, args[0])
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.jsonOut, "otlp-json", "", "write OTLP/JSON to `OUT` (\"-\": stdout)")
	f.StringVar(&o.endpoint, "otlp-endpoint", "", "send OTLP/HTTP to the collector at `URL`")
	f.StringArrayVar(&o.headers, "header", nil, "HTTP header `K=V` for --otlp-endpoint (repeatable; values are never printed)")
	f.BoolVar(&o.content, "include-content", false, "include prompts, replies, tool arguments and results (redacted)")
	f.DurationVar(&o.timeout, "timeout", 10*time.Second, "give up on the endpoint after this long")
	f.BoolVar(&o.lenient, "lenient", false, "skip corrupt lines in the middle of the file instead of failing")
	f.StringVar(&o.service, "service-name", "crewbench", "the resource's service.name")
	return cmd
}

func runExport(cmd *cobra.Command, o *exportOpts, path string) error {
	if o.jsonOut == "" && o.endpoint == "" {
		return errors.New("say where to export: --otlp-json OUT or --otlp-endpoint URL")
	}
	if len(o.headers) > 0 && o.endpoint == "" {
		return errors.New("--header needs --otlp-endpoint")
	}
	if o.timeout <= 0 {
		return errors.New("--timeout must be positive")
	}
	// Check the endpoint and headers before reading anything: a typo
	// should fail at once.
	var client *session.OTLPClient
	if o.endpoint != "" {
		target, err := session.TracesURL(o.endpoint)
		if err != nil {
			return fmt.Errorf("--otlp-endpoint: %w", err)
		}
		headers, err := parseHeaderFlags("--header", o.headers)
		if err != nil {
			return err
		}
		client = &session.OTLPClient{Endpoint: target, Headers: headers, Timeout: o.timeout}
	}
	// Two streaming passes (check and harvest secrets, then spans), so a
	// session of any size exports in the memory of its open scopes.
	x, err := session.OpenExport(path, session.ReadOptions{Lenient: o.lenient},
		session.ExportOptions{IncludeContent: o.content, ServiceName: o.service, ServiceVersion: buildVersion()})
	if err != nil {
		var le *session.LineError
		if errors.As(err, &le) {
			err = fmt.Errorf("%w (--lenient skips corrupt lines)", err)
		}
		return err
	}
	stderr := cmd.ErrOrStderr()
	for _, w := range x.Warnings {
		fmt.Fprintf(stderr, "crewbench: warning: %s: %s\n", path, w)
	}
	out, err := openOTLPJSONOut(cmd, o.jsonOut)
	if err != nil {
		return err
	}
	var jw *session.OTLPJSONWriter
	if out != nil {
		jw = session.NewOTLPJSONWriter(out, x.Opts)
	}
	spans, traces, err := x.Spans(func(batch []*tracepb.Span) error {
		if jw != nil {
			if err := jw.Write(batch); err != nil {
				return fmt.Errorf("write OTLP JSON: %w", err)
			}
		}
		if client != nil {
			if err := client.Export(cmd.Context(), session.WrapSpans(batch, x.Opts)); err != nil {
				if errors.Is(err, syscall.ECONNREFUSED) {
					return fmt.Errorf("%w (is a collector listening there?)", err)
				}
				return err
			}
		}
		return nil
	})
	if err == nil && spans == 0 {
		err = fmt.Errorf("%s has no scopes to export (%d events, none of them a crew, task, LLM call, tool call or MCP call)", path, x.Events)
	}
	if err == nil && jw != nil {
		err = jw.Close()
	}
	if out != nil {
		if cerr := out.finish(err == nil); err == nil {
			err = cerr
		}
	}
	if err != nil {
		return err
	}
	what := fmt.Sprintf("%s (%s)", countNoun(spans, "span", "spans"), countNoun(traces, "trace", "traces"))
	if o.jsonOut != "" && o.jsonOut != "-" {
		fmt.Fprintf(stderr, "wrote %s to %s\n", what, o.jsonOut)
	}
	if client != nil {
		fmt.Fprintf(stderr, "sent %s to %s\n", what, session.RedactURL(client.Endpoint))
	}
	return nil
}

// otlpJSONOut is where --otlp-json goes: stdout, or a temporary file next
// to OUT that becomes OUT only once the export succeeded.
type otlpJSONOut struct {
	io.Writer
	tmp  *os.File
	dest string
}

func openOTLPJSONOut(cmd *cobra.Command, dest string) (*otlpJSONOut, error) {
	switch dest {
	case "":
		return nil, nil
	case "-":
		return &otlpJSONOut{Writer: cmd.OutOrStdout()}, nil
	}
	tmp, err := os.CreateTemp(filepath.Dir(dest), "."+filepath.Base(dest)+".*")
	if err != nil {
		return nil, fmt.Errorf("write OTLP JSON: %w", err)
	}
	return &otlpJSONOut{Writer: tmp, tmp: tmp, dest: dest}, nil
}

// finish puts the file in place when ok, else removes it.
func (o *otlpJSONOut) finish(ok bool) error {
	if o.tmp == nil {
		return nil
	}
	err := o.tmp.Close()
	if ok && err == nil {
		err = os.Rename(o.tmp.Name(), o.dest)
	}
	if !ok || err != nil {
		_ = os.Remove(o.tmp.Name())
	}
	if err != nil {
		return fmt.Errorf("write OTLP JSON: %w", err)
	}
	return nil
}
