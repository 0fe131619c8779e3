"""crewai.experimental.agent_executor.AgentExecutor: a Flow named
"AgentExecutor" replaying the §3.5 call orders.

LLM calls (both paths): before hooks → llm.call (llm_call_started/completed)
→ after hooks (text replies only). Native tool calls: tool_usage_started →
before hooks → tool → after hooks → tool_usage_finished. ReAct: parse →
before hooks → ToolUsage.use (tool_usage_started/finished) → after hooks;
a blocked ReAct call emits no tool events."""
import concurrent.futures
import contextvars
import copy
import datetime
import json
import re

from crewai.agents.parser import AgentFinish
from crewai.events.event_bus import crewai_event_bus as bus
from crewai.events.types.flow_events import FlowFailedEvent, FlowFinishedEvent, FlowStartedEvent
from crewai.events.types.logging_events import AgentLogsExecutionEvent, AgentLogsStartedEvent
from crewai.events.types.tool_usage_events import (ToolSelectionErrorEvent, ToolUsageErrorEvent,
                                                   ToolUsageFinishedEvent, ToolUsageStartedEvent,
                                                   ToolValidateInputErrorEvent)
from crewai.hooks.llm_hooks import (LLMCallHookContext, get_after_llm_call_hooks, get_before_llm_call_hooks,
                                    run_after_llm_call_hooks, run_before_llm_call_hooks)
from crewai.hooks.tool_hooks import ToolCallHookContext, run_after_tool_call_hooks, run_before_tool_call_hooks
from crewai.tools import sanitize_tool_name

# Sync flow methods run via asyncio.to_thread, so hooks run on asyncio_N threads.
_TO_THREAD = concurrent.futures.ThreadPoolExecutor(max_workers=4, thread_name_prefix="asyncio")


def blocked_text(name):
    return f"Tool execution blocked by hook. Tool: {name}"


class AgentExecutor:
    def __init__(self, agent, crew):
        self.agent, self.crew, self.task = agent, crew, None
        self.llm = agent.llm
        self.messages, self.iterations = [], 0
        # LLM hooks are snapshotted when the executor is constructed.
        self.before_llm_call_hooks = get_before_llm_call_hooks()
        self.after_llm_call_hooks = get_after_llm_call_hooks()
        self.results = []

    def invoke(self, task, prompt, tools):
        self.task = task
        bus.emit(self, FlowStartedEvent(flow_name="AgentExecutor"))
        try:
            ctx = contextvars.copy_context()
            result = _TO_THREAD.submit(ctx.run, self._run, task, prompt, tools).result()
        except Exception as e:
            bus.flush()
            bus.emit(self, FlowFailedEvent(flow_name="AgentExecutor", error=e))
            raise
        bus.flush()
        bus.emit(self, FlowFinishedEvent(flow_name="AgentExecutor", result=result, state={"iterations": self.iterations}))
        return result

    def _run(self, task, prompt, tools):
        bus.emit(self.agent, AgentLogsStartedEvent(agent_role=self.agent.role, task_description=task.description,
                                                   verbose=self.agent.verbose))
        self.messages = [{"role": "system", "content": f"You are {self.agent.role}. {self.agent.goal}"},
                         {"role": "user", "content": prompt}]
        self.iterations, self.results = 0, []
        native = self.llm.supports_function_calling() and bool(tools)  # decided at iterations == 0
        by_name = {sanitize_tool_name(t.name): t for t in tools}
        # Hooks get the CrewStructuredTool built from the agent's tool, once
        # per executor as in CrewAI, not the tool itself.
        self.structured = {n: t.to_structured_tool() for n, t in by_name.items()}
        schemas = [{"type": "function", "function": {"name": n, "description": t.description}}
                   for n, t in by_name.items()] if native else None
        while self.iterations < self.agent.max_iter:
            answer = self._llm_response(task, schemas)
            self.iterations += 1
            if isinstance(answer, list):
                self.messages.append({"role": "assistant", "content": None, "tool_calls": answer})
                for call in answer:
                    out = self._native_tool(call, by_name, task)
                    self.messages.append({"role": "tool", "tool_call_id": call["id"], "content": out})
                continue
            if not native and "Final Answer:" not in answer:
                m = re.search(r"Action:\s*(.+?)\s*\nAction Input:\s*(.*)", answer, re.S)
                if m:
                    out = self._react_tool(m.group(1).strip(), m.group(2).strip(), by_name, task)
                    self.messages.append({"role": "assistant", "content": answer + "\nObservation: " + out})
                    continue
            final = answer.split("Final Answer:", 1)[-1].strip()
            thought = answer.split("Final Answer:", 1)[0].strip() if "Final Answer:" in answer else ""
            finished = AgentFinish(thought=thought, output=final, text=answer)
            bus.emit(self.agent, AgentLogsExecutionEvent(agent_role=self.agent.role, formatted_answer=finished,
                                                         verbose=self.agent.verbose))
            return final
        raise RuntimeError("max iterations reached")

    def _llm_response(self, task, schemas):
        ctx = LLMCallHookContext(executor=self)
        if not run_before_llm_call_hooks(ctx, hooks=self.before_llm_call_hooks):
            raise ValueError("LLM call blocked by before_llm_call hook")
        answer = self.llm.call(self.messages, tools=schemas, from_task=task, from_agent=self.agent,
                               results=self.results)
        if isinstance(answer, str):  # tool-call lists never reach the after hooks
            ctx.response = answer
            new = run_after_llm_call_hooks(ctx, hooks=self.after_llm_call_hooks)
            if new is not None:
                answer = new
        return answer

    def _hook_ctx(self, name, args, task):
        return ToolCallHookContext(tool_name=name, tool_input=args, tool=self.structured.get(name), agent=self.agent,
                                   task=task, crew=self.crew)

    def _common(self, name, task):
        return dict(tool_name=name, agent_key=str(self.agent.id), from_task=task, from_agent=self.agent)

    def _native_tool(self, call, by_name, task):
        name, args = call["name"], dict(call.get("arguments") or {})
        tool = by_name.get(name)
        started = datetime.datetime.now()
        # tool_args is a copy made before the hooks (pre-edit values).
        bus.emit(self, ToolUsageStartedEvent(tool_args=copy.deepcopy(args), tool_class=type(tool).__name__,
                                             run_attempts=1, **self._common(name, task)))
        ctx = self._hook_ctx(name, args, task)
        error = None
        if not run_before_tool_call_hooks(ctx):
            result = raw = blocked_text(name)
        else:
            try:
                raw = tool.run(**ctx.tool_input)
                result = str(raw)
            except Exception as e:
                error, raw = e, None
                result = f"Error executing tool: {e}"
        ctx.tool_result, ctx.raw_tool_result = result, raw
        new = run_after_tool_call_hooks(ctx)
        if new is not None:
            result = new
        if error is not None:
            bus.emit(self, ToolUsageErrorEvent(tool_args=args, error=error, **self._common(name, task)))
        else:
            bus.emit(self, ToolUsageFinishedEvent(tool_args=args, started_at=started,
                                                  finished_at=datetime.datetime.now(), output=result,
                                                  **self._common(name, task)))
        self.results.append(result)
        return result

    def _react_tool(self, action, action_input, by_name, task):
        name = sanitize_tool_name(action)
        tool = by_name.get(name)
        usage = ToolUsage(self)
        if tool is None:  # an unknown tool returns an error without running hooks
            bus.emit(usage, ToolSelectionErrorEvent(tool_args=action_input, error=f"Tool {action} not found",
                                                    **self._common(name, task)))
            return f"Error: the Action '{action}' does not exist."
        try:
            arguments = json.loads(action_input) if action_input else {}
        except ValueError as e:
            bus.emit(usage, ToolValidateInputErrorEvent(tool_args=action_input, error=str(e), agent=self.agent,
                                                        **self._common(name, task)))
            return f"Error: invalid Action Input: {e}"
        tool_input = arguments if arguments else {}  # with no arguments, edits are lost
        ctx = self._hook_ctx(name, tool_input, task)
        if not run_before_tool_call_hooks(ctx):
            result = blocked_text(name)  # no tool events on the ReAct path
        else:
            result = usage.use(tool, name, ctx.tool_input, action_input, task)
        ctx.tool_result, ctx.raw_tool_result = result, result
        new = run_after_tool_call_hooks(ctx)
        if new is not None:
            result = new
        self.results.append(result)
        return result


class ToolUsage:
    def __init__(self, executor):
        self.executor = executor

    def use(self, tool, name, args, raw_input, task):
        ex = self.executor
        started = datetime.datetime.now()
        # tool_args is the raw Action Input string; `agent` is set (spec §2.3).
        bus.emit(self, ToolUsageStartedEvent(tool_args=raw_input, agent=ex.agent, run_attempts=1,
                                             tool_class=type(tool).__name__, **ex._common(name, task)))
        kept = {k: v for k, v in args.items() if k in tool.args_schema}  # ToolUsage._use keeps schema keys
        try:
            result = str(tool.run(**kept))
        except Exception as e:
            bus.emit(self, ToolUsageErrorEvent(tool_args=kept, error=e, **ex._common(name, task)))
            return f"Error executing tool: {e}"
        bus.emit(self, ToolUsageFinishedEvent(tool_args=kept, started_at=started, finished_at=datetime.datetime.now(),
                                              output=result, **ex._common(name, task)))
        return result
