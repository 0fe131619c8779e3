package session

import (
	"fmt"
	"strconv"
	"sync/atomic"
	"time"
)

// fakeClock is a clock the test moves by hand.
type fakeClock struct{ t time.Time }

func newFakeClock() *fakeClock {
	return &fakeClock{t: time.Date(2026, 3, 14, 9, 26, 53, 0, time.UTC)}
}

func (c *fakeClock) now() time.Time          { return c.t }
func (c *fakeClock) advance(d time.Duration) { c.t = c.t.Add(d) }

// demoWriter emits a realistic crew run through an Emitter with a fixed
// clock: what the engine and mcpconn are expected to emit (the keys in
// keys.go, CrewAI's field names).
type demoWriter struct {
	em    *Emitter
	clock *fakeClock
	run   string
}

func newDemoWriter(sink Sink) *demoWriter {
	c := newFakeClock()
	return &demoWriter{em: NewEmitter(sink).WithClock(c.now, counter("ev")), clock: c, run: "run-1"}
}

func (d *demoWriter) emit(ev Event) Event {
	if ev.RunID == "" {
		ev.RunID = d.run
	}
	return d.em.Emit(ev)
}

const systemPrompt = `You are Weather researcher. You research weather for travellers.
Your personal goal is: Find the forecast for the destination
You ONLY have access to the following tools, and should NEVER make up tools that are not listed here:

Tool Name: get_forecast
Tool Arguments: {'city': {'description': 'City name', 'type': 'str'}}
Tool Description: Get the weather forecast for a city.

IMPORTANT: Use the following format in your response:

Thought: you should always think about what to do
Action: the action to take, only one name of [get_forecast], just the name, exactly as it's written.
Action Input: the input to the action, just a simple JSON object, enclosed in curly braces, using " to wrap keys and values.
Observation: the result of the action`

func (d *demoWriter) llm(parent, task, role string, history []any, in, out int64, reply string) {
	span := d.em.NewSpan()
	base := Event{Span: span, Parent: parent, TaskName: task, AgentRole: role}
	ev := base
	ev.Kind = LLMCallStarted
	ev.Data = map[string]any{KeyModel: "openai/gpt-4o-mini", KeyMessages: history, "temperature": 0.7, KeyCallID: span,
		KeyTools: []any{map[string]any{"type": "function", "function": map[string]any{"name": "get_forecast"}}}}
	d.emit(ev)
	d.clock.advance(800 * time.Millisecond)
	ev = base
	ev.Kind = LLMCallCompleted
	ev.Data = map[string]any{KeyModel: "openai/gpt-4o-mini", KeyResponse: reply, KeyFinishReason: "stop", KeyResponseID: "chatcmpl-" + span,
		KeyUsage: map[string]any{"prompt_tokens": in, "completion_tokens": out, "total_tokens": in + out}}
	d.emit(ev)
}

// toolCall emits a tool call with its MCP call and attempts; outcomes lists
// each attempt's outcome class.
func (d *demoWriter) toolCall(parent, task, role, llmName, orig, server string, args map[string]any, outcomes []string, output string) {
	tool := d.em.NewSpan()
	base := Event{TaskName: task, AgentRole: role, Server: server, ToolName: llmName, OriginalToolName: orig}
	ev := base
	ev.Kind, ev.Span, ev.Parent = ToolUsageStarted, tool, parent
	ev.Data = map[string]any{KeyToolArgs: args, KeyToolCallID: "call_" + tool, "run_attempts": 1}
	d.emit(ev)
	mcp := d.em.NewSpan()
	ev = base
	ev.Kind, ev.Span, ev.Parent = MCPToolExecutionStarted, mcp, tool
	ev.Data = map[string]any{KeyToolArgs: args, KeyTransport: "stdio", KeyMaxAttempts: 3, KeyMCPSessionID: ""}
	d.emit(ev)
	final := ""
	for i, oc := range outcomes {
		att := d.em.NewSpan()
		ev = base
		ev.Kind, ev.Span, ev.Parent, ev.Attempt = MCPAttemptStarted, att, mcp, i+1
		ev.Data = map[string]any{KeyMaxAttempts: 3, KeyJSONRPCID: float64(i + 2), KeyTimeout: int64(time.Second)}
		d.emit(ev)
		ev = base
		ev.Kind, ev.Span, ev.Parent, ev.Attempt, ev.Outcome = MCPAttemptFinished, att, mcp, i+1, oc
		switch oc {
		case OutcomeTimeout:
			d.clock.advance(time.Second)
			ev.Error = "Tool execution timed out after 1 seconds"
			ev.Duration = time.Second
		case OutcomeIsError:
			d.clock.advance(120 * time.Millisecond)
			ev.Error = "city not found: Atlantis"
			ev.Duration = 120 * time.Millisecond
		default:
			d.clock.advance(300 * time.Millisecond)
			ev.Duration = 300 * time.Millisecond
			ev.Data = map[string]any{KeyResult: map[string]any{"content": []any{map[string]any{"type": "text", "text": output}}}}
		}
		d.emit(ev)
		final = oc
		if oc == OutcomeTimeout && i+1 < len(outcomes) {
			backoff := time.Duration(1<<i) * time.Second
			d.emit(Event{Kind: MCPRetryScheduled, Span: mcp, Server: server, ToolName: llmName, Attempt: i + 1, Outcome: oc, Duration: backoff})
			d.clock.advance(backoff)
		}
	}
	ev = base
	ev.Span, ev.Parent, ev.Outcome = mcp, tool, final
	if final == OutcomeOK {
		ev.Kind = MCPToolExecutionCompleted
		ev.Data = map[string]any{KeyResult: output, "execution_duration_ms": 1300}
	} else {
		ev.Kind = MCPToolExecutionFailed
		ev.Error = "Error executing MCP tool " + orig + ": city not found: Atlantis"
		if final == OutcomeTimeout {
			ev.Error = "Operation failed after 3 attempts: Tool execution timed out after 1 seconds"
		}
	}
	d.emit(ev)
	ev = base
	ev.Span, ev.Parent = tool, parent
	if final == OutcomeOK {
		ev.Kind = ToolUsageFinished
		ev.Data = map[string]any{KeyOutput: output, KeyFromCache: false}
	} else {
		ev.Kind = ToolUsageError
		ev.Error = "Error executing tool: " + orig + " failed"
	}
	d.emit(ev)
}

// task emits one task with `steps` agent steps. Odd steps call the weather
// tool; the last one answers.
func (d *demoWriter) task(crew, name, role string, steps int, variant int) {
	task := d.em.NewSpan()
	d.emit(Event{Kind: TaskStarted, Span: task, Parent: crew, TaskName: name, TaskID: "task-" + name, AgentRole: role,
		Data: map[string]any{"context": ""}})
	agent := d.em.NewSpan()
	d.emit(Event{Kind: AgentExecutionStarted, Span: agent, Parent: task, TaskName: name, AgentRole: role, AgentID: "agent-" + role,
		Data: map[string]any{"task_prompt": "Find the forecast for Paris on 2026-03-15.", "tools": []any{"get_forecast"}}})
	history := []any{
		map[string]any{"role": "system", "content": systemPrompt},
		map[string]any{"role": "user", "content": "Current Task: Find the forecast for Paris on 2026-03-15.\n\nBegin! This is VERY important to you, use the tools available and give your best Final Answer, your job depends on it!\n\nThought:"},
	}
	for i := 1; i <= steps; i++ {
		step := d.em.NewSpan()
		d.emit(Event{Kind: AgentStepStarted, Span: step, Parent: agent, TaskName: name, AgentRole: role, Data: map[string]any{KeyStep: i}})
		last := i == steps
		reply := "Thought: I need the forecast.\nAction: get_forecast\nAction Input: {\"city\": \"Paris\"}"
		if last {
			reply = "Thought: I now know the final answer\nFinal Answer: Sunny, 21°C in Paris."
		}
		d.llm(step, name, role, history, int64(600+len(history)*120), 64, reply)
		history = append(history, map[string]any{"role": "assistant", "content": reply})
		if !last {
			outcomes := []string{OutcomeOK}
			switch (variant + i) % 4 {
			case 1:
				outcomes = []string{OutcomeTimeout, OutcomeOK}
			case 3:
				outcomes = []string{OutcomeIsError}
			}
			d.toolCall(step, name, role, "get_forecast", "getForecast", "weather", map[string]any{"city": "Paris"}, outcomes, "Sunny, 21°C")
			history = append(history, map[string]any{"role": "user", "content": "Observation: Sunny, 21°C"})
		}
		d.emit(Event{Kind: AgentStepFinished, Span: step, Parent: agent, TaskName: name, AgentRole: role})
	}
	d.emit(Event{Kind: AgentExecutionCompleted, Span: agent, Parent: task, TaskName: name, AgentRole: role,
		Data: map[string]any{KeyOutput: "Sunny, 21°C in Paris."}})
	d.emit(Event{Kind: TaskCompleted, Span: task, Parent: crew, TaskName: name, AgentRole: role,
		Data: map[string]any{KeyOutput: map[string]any{"raw": "Sunny, 21°C in Paris.", "agent": role}}})
}

// demoRun emits the demo crew: a connection, two tasks, a retry, a cache
// hit, a usage limit, a guard and a failed tool call; the crew succeeds.
func demoRun(sink Sink) *demoWriter {
	d := newDemoWriter(sink)
	crew := d.em.NewSpan()
	d.emit(Event{Kind: CrewKickoffStarted, Span: crew, Data: map[string]any{KeyCrewName: "trip_crew", KeyInputs: map[string]any{"city": "Paris"}}})
	conn := d.em.NewSpan()
	d.emit(Event{Kind: MCPConnectionStarted, Span: conn, Parent: crew, Server: "weather",
		Data: map[string]any{KeyTransport: "stdio", "connect_timeout": 30}})
	d.emit(Event{Kind: MCPStderr, Span: conn, Server: "weather", Data: map[string]any{KeyLine: "weather server ready on stdio"}})
	d.clock.advance(120 * time.Millisecond)
	d.emit(Event{Kind: MCPConnectionCompleted, Span: conn, Parent: crew, Server: "weather",
		Data: map[string]any{KeyTransport: "stdio", KeyProtocolVersion: "2025-11-25", "connection_duration_ms": 120}})
	d.emit(Event{Kind: MCPToolsListed, Server: "weather", Parent: crew, Data: map[string]any{KeyMessage: "2 tools (1 filtered out)"}})

	d.task(crew, "research_task", "Weather researcher", 2, 0)

	// Second task: a cache hit, a usage limit, a guard and a failing call.
	task := d.em.NewSpan()
	role, name := "Trip writer", "writing_task"
	d.emit(Event{Kind: TaskStarted, Span: task, Parent: crew, TaskName: name, AgentRole: role})
	agent := d.em.NewSpan()
	d.emit(Event{Kind: AgentExecutionStarted, Span: agent, Parent: task, TaskName: name, AgentRole: role})
	step := d.em.NewSpan()
	d.emit(Event{Kind: AgentStepStarted, Span: step, Parent: agent, TaskName: name, AgentRole: role, Data: map[string]any{KeyStep: 1}})
	d.llm(step, name, role, []any{map[string]any{"role": "user", "content": "Write the trip note."}}, 900, 80, "Action: get_forecast")
	cached := d.em.NewSpan()
	d.emit(Event{Kind: ToolUsageStarted, Span: cached, Parent: step, TaskName: name, AgentRole: role, Server: "weather",
		ToolName: "get_forecast", OriginalToolName: "getForecast", Data: map[string]any{KeyToolArgs: map[string]any{"city": "Paris"}}})
	d.emit(Event{Kind: CacheHit, Span: cached, ToolName: "get_forecast"})
	d.clock.advance(2 * time.Millisecond)
	d.emit(Event{Kind: ToolUsageFinished, Span: cached, Parent: step, TaskName: name, AgentRole: role, Server: "weather",
		ToolName: "get_forecast", OriginalToolName: "getForecast", Data: map[string]any{KeyOutput: "Sunny, 21°C", KeyFromCache: true}})
	limited := d.em.NewSpan()
	d.emit(Event{Kind: ToolUsageStarted, Span: limited, Parent: step, TaskName: name, AgentRole: role, Server: "weather",
		ToolName: "get_forecast", OriginalToolName: "getForecast", Data: map[string]any{KeyToolArgs: map[string]any{"city": "Lyon"}}})
	d.emit(Event{Kind: UsageLimitReached, Span: limited, ToolName: "get_forecast",
		Data: map[string]any{KeyUsageCount: 2, KeyMaxUsageCount: 2, KeyMessage: "Tool 'get_forecast' has reached its usage limit of 2 times and cannot be used anymore."}})
	d.emit(Event{Kind: ToolUsageFinished, Span: limited, Parent: step, TaskName: name, AgentRole: role, Server: "weather",
		ToolName: "get_forecast", OriginalToolName: "getForecast", Data: map[string]any{KeyOutput: "Tool 'get_forecast' has reached its usage limit of 2 times and cannot be used anymore."}})
	guard := d.em.NewSpan()
	d.emit(Event{Kind: ToolUsageStarted, Span: guard, Parent: step, TaskName: name, AgentRole: role, Server: "weather",
		ToolName: "get_forecast", OriginalToolName: "getForecast", Data: map[string]any{KeyToolArgs: map[string]any{"city": "Paris"}}})
	d.emit(Event{Kind: GuardTripped, Span: guard, ToolName: "get_forecast",
		Data: map[string]any{KeyMessage: "I tried reusing the same input, I must stop using this action input. I'll try something else instead."}})
	d.emit(Event{Kind: ToolUsageFinished, Span: guard, Parent: step, TaskName: name, AgentRole: role, Server: "weather",
		ToolName: "get_forecast", OriginalToolName: "getForecast"})
	d.toolCall(step, name, role, "get_forecast", "getForecast", "weather", map[string]any{"city": "Atlantis"}, []string{OutcomeIsError}, "")
	d.emit(Event{Kind: AgentStepFinished, Span: step, Parent: agent, TaskName: name, AgentRole: role})
	step2 := d.em.NewSpan()
	d.emit(Event{Kind: AgentStepStarted, Span: step2, Parent: agent, TaskName: name, AgentRole: role, Data: map[string]any{KeyStep: 2}})
	d.llm(step2, name, role, []any{map[string]any{"role": "user", "content": "Write the trip note."}}, 1100, 90, "Final Answer: Pack sunglasses.")
	d.emit(Event{Kind: AgentStepFinished, Span: step2, Parent: agent, TaskName: name, AgentRole: role})
	d.emit(Event{Kind: AgentExecutionCompleted, Span: agent, Parent: task, TaskName: name, AgentRole: role})
	d.emit(Event{Kind: TaskCompleted, Span: task, Parent: crew, TaskName: name, AgentRole: role,
		Data: map[string]any{KeyOutput: map[string]any{"raw": "Pack sunglasses."}}})
	d.emit(Event{Kind: CrewKickoffCompleted, Span: crew, Data: map[string]any{KeyCrewName: "trip_crew", KeyTotalTokens: 4000,
		KeyOutput: "Pack sunglasses."}})
	return d
}

// manyEvents emits at least n events of realistic crew runs (tasks of
// three steps repeated) for size and throughput measurements.
func manyEvents(n int) []Event {
	var c Collector
	d := newDemoWriter(&c)
	crew := d.em.NewSpan()
	d.emit(Event{Kind: CrewKickoffStarted, Span: crew, Data: map[string]any{KeyCrewName: "trip_crew"}})
	var count atomic.Int64
	d.em.sink = Fanout{&c, SinkFunc(func(Event) { count.Add(1) })}
	for i := 0; count.Load() < int64(n-1); i++ {
		d.task(crew, fmt.Sprintf("task_%d", i), "Weather researcher", 3, i)
	}
	d.emit(Event{Kind: CrewKickoffCompleted, Span: crew, Data: map[string]any{KeyCrewName: "trip_crew"}})
	evs := c.Events()
	if len(evs) > n {
		evs = evs[:n]
	}
	return evs
}

// counter returns an id generator producing "prefix-1", "prefix-2", … for
// deterministic tests.
func counter(prefix string) func() string {
	var n atomic.Int64
	return func() string {
		return prefix + "-" + strconv.FormatInt(n.Add(1), 10)
	}
}
