package session

// Data keys. Kind-specific fields go in Event.Data under CrewAI's own field
// names where CrewAI has one (crewai-formats.md §6.2); the rest are
// crewbench's. The tree builder, the printer and the OTLP exporter read these
// keys, so an emitter that uses them gets titles, timings, token totals and
// span attributes for free. Unknown keys are kept and recorded as they are.
const (
	// Crew scope.
	KeyCrewName    = "crew_name"    // crew_kickoff_*: the crew's name
	KeyInputs      = "inputs"       // crew_kickoff_started: kickoff inputs
	KeyOutput      = "output"       // *_completed / tool_usage_finished: the output text
	KeyTotalTokens = "total_tokens" // crew_kickoff_completed: CrewAI's total

	// LLM calls (llm_call_*).
	KeyModel        = "model"         // "openai/gpt-4o-mini" (CrewAI/LiteLLM form)
	KeyProvider     = "provider"      // crewbench: gen_ai.provider.name when the model string has no prefix
	KeyMessages     = "messages"      // the request messages
	KeyTools        = "tools"         // the tool definitions sent (LLM-visible names)
	KeyResponse     = "response"      // the reply
	KeyUsage        = "usage"         // map: prompt_tokens/input_tokens, completion_tokens/output_tokens, total_tokens
	KeyFinishReason = "finish_reason" // "stop", "tool_calls", …
	KeyResponseID   = "response_id"
	KeyCallID       = "call_id"
	KeyChunk        = "chunk" // llm_stream_chunk

	// Tool calls (tool_usage_*, mcp_tool_execution_*).
	KeyToolArgs   = "tool_args"
	KeyToolCallID = "tool_call_id" // crewbench: the LLM's id for this tool call (gen_ai.tool.call.id)
	KeyFromCache  = "from_cache"
	KeyResult     = "result" // mcp_tool_execution_completed, attempts: the raw result
	// KeySkipped marks a tool_usage_finished whose call was skipped at a
	// breakpoint: the tool did not run, its output is the supplied result.
	KeySkipped   = "skipped"
	KeyFailure   = "failure"
	KeyServerURL = "server_url" // redacted before anything is written
	// KeyServer is crewbench's name for the MCP server (mcpconn.Handle) on
	// CrewAI's MCP events, whose server_name (Event.Server) is CrewAI's own
	// value ("cmd args" with CrewAI's spacing, or the URL's host).
	KeyServer    = "server"
	KeyTransport = "transport_type" // "stdio", "streamable-http", "sse"

	// MCP attempts (crewbench_mcp_attempt_*, crewbench_mcp_retry_scheduled).
	KeyMaxAttempts     = "max_attempts"     // attempts the call policy allows
	KeyTimeout         = "timeout_ns"       // the per-attempt timeout, nanoseconds
	KeyBackoff         = "backoff_ns"       // retry_scheduled: the sleep before the next attempt (Event.Duration is read first)
	KeyJSONRPCID       = "jsonrpc_id"       // the request id on the wire
	KeyJSONRPCCode     = "jsonrpc_code"     // the JSON-RPC error code, for outcome jsonrpc_error
	KeyMCPSessionID    = "mcp_session_id"   // Mcp-Session-Id, when the transport has one
	KeyProtocolVersion = "protocol_version" // the negotiated MCP protocol version

	// Agent steps, guards, limits, warnings, server output.
	KeyStep          = "step"            // 1-based agent loop iteration
	KeyPlanStep      = "plan_step"       // the agent step is a step of a ready plan
	KeyUsageCount    = "usage_count"     // usage_limit_reached
	KeyMaxUsageCount = "max_usage_count" // usage_limit_reached
	KeyMessage       = "message"         // warnings, guards, notifications: the text shown
	KeyBreakpoint    = "breakpoint"      // warning: the tool= or server= breakpoint that never paused
	KeyDidYouMean    = "did_you_mean"    // warning: the breakpoint probably meant, when one is near
	KeyFeedback      = "feedback"        // crewbench_human_input_received: the human's reply
	KeyLine          = "line"            // crewbench_mcp_stderr: one stderr line
	KeyDirection     = "direction"       // crewbench_mcp_frame: "send" or "recv"
	KeyFrame         = "payload"         // crewbench_mcp_frame: the JSON-RPC message as JSON text (redacted, capped)
	KeyMethod        = "method"          // crewbench_mcp_frame: the JSON-RPC method ("" for a response)
	KeyRequestID     = "id"              // crewbench_mcp_frame: the JSON-RPC request id
	KeyState         = "state"           // crewbench_mcp_server_state
	KeyListed        = "listed"          // crewbench_mcp_tools_listed: tools the server listed
	KeyKept          = "kept"            // crewbench_mcp_tools_listed: tools the filter/selection kept
)
