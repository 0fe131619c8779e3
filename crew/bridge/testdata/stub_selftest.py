"""Checks that the stub crewai behaves as spec §1-§3 says CrewAI 1.15.17
does. Run by TestStubIsFaithful: `python3 stub_selftest.py` with the stub on
PYTHONPATH; prints "ok" or fails an assert."""
import contextlib
import io
import threading
import time

import crewai
from crewai.events import BaseEventListener, crewai_event_bus as bus
from crewai.events.types.tool_usage_events import ToolUsageEvent, ToolUsageStartedEvent
from crewai.events.types.llm_events import LLMStreamChunkEvent
from crewai.hooks import (HookAborted, ToolCallHookContext, clear_all_global_hooks, register_after_tool_call_hook,
                          register_before_tool_call_hook, before_tool_call)
from crewai.hooks.tool_hooks import run_after_tool_call_hooks, run_before_tool_call_hooks
from crewai.mcp import MCPServerStdio, create_static_tool_filter
from crewai._model import PydanticSerializationError

assert crewai.__version__ == "1.15.17"


def started(i=0):
    return ToolUsageStartedEvent(tool_name=f"t{i}", tool_args={})


# Exact-class registration: a handler on a base class receives nothing.
got = []
bus.on(ToolUsageEvent)(lambda s, e: got.append("base"))
bus.on(ToolUsageStartedEvent)(lambda s, e: got.append(("exact", threading.current_thread().name)))
bus.emit(object(), started()).result()
assert got == [("exact", got[0][1])] and got[0][1].startswith("CrewAISyncHandler"), got

# Three parameters: the third receives the runtime state.
seen = []


def three(source, event, state):
    seen.append(state)


bus.register_handler(ToolUsageStartedEvent, three)
bus.emit(None, started()).result()
assert seen == [None], seen
bus.off(ToolUsageStartedEvent, three)

# Unordered handling on up to 10 threads.
order, names = [], set()


def slow(source, event):
    time.sleep(0.01 * (int(event.tool_name[1:]) % 3))
    order.append(int(event.tool_name[1:]))
    names.add(threading.current_thread().name)


with bus.scoped_handlers():
    bus.on(ToolUsageStartedEvent)(slow)
    for i in range(20):
        bus.emit(None, started(i))
    assert bus.flush()
assert sorted(order) == list(range(20)) and order != list(range(20)) and len(names) <= 10, (order, names)

# scoped_handlers hides every existing handler.
got.clear()
with bus.scoped_handlers():
    assert bus.emit(None, started()) is None
assert got == []

# Handler errors are swallowed and printed with the handler's name.
def broken(source, event):
    raise RuntimeError("boom")


with bus.scoped_handlers():
    bus.on(ToolUsageStartedEvent)(broken)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        bus.emit(None, started()).result()
    assert "[CrewAIEventsBus] Sync handler error in broken: boom" in out.getvalue(), out.getvalue()

# Stream chunks are handled inline on the emitting thread.
with bus.scoped_handlers():
    where = []
    bus.on(LLMStreamChunkEvent)(lambda s, e: where.append(threading.current_thread().name))
    assert bus.emit(None, LLMStreamChunkEvent(call_id="c", chunk="x")) is None
    assert where == [threading.current_thread().name]


# BaseEventListener registers through setup_listeners.
class L(BaseEventListener):
    def setup_listeners(self, b):
        b.on(ToolUsageStartedEvent)(lambda s, e: got.append("listener"))


L()
got.clear()
bus.emit(None, started()).result()
assert "listener" in got

# The StaticToolFilter serialisation failure, and the remedies.
agent = crewai.Agent(role="r", mcps=[MCPServerStdio(name="s", command="x", tool_filter=create_static_tool_filter(["a"]))])
ev = ToolUsageStartedEvent(tool_name="t", tool_args="{}", agent=agent)
try:
    ev.model_dump(mode="json")
    raise AssertionError("model_dump should fail on a StaticToolFilter")
except PydanticSerializationError as e:
    assert "Unable to serialize unknown type: <class 'crewai.mcp.filters.StaticToolFilter'>" in str(e)
assert ev.model_dump(mode="json", exclude={"agent"})["tool_name"] == "t"
assert "StaticToolFilter" in str(ev.model_dump(mode="json", fallback=repr)["agent"]["mcps"][0]["tool_filter"])
assert list(ev.model_dump())[:15] == list(crewai.events.BaseEvent.model_fields)

# Hook return values: False blocks, a str from an after hook replaces the
# result, other exceptions are swallowed, HookAborted blocks a before hook
# and propagates from an after hook.
clear_all_global_hooks()
ctx = ToolCallHookContext(tool_name="t", tool_input={}, tool=None)
register_before_tool_call_hook(lambda c: (_ for _ in ()).throw(ValueError("ignored")))
assert run_before_tool_call_hooks(ctx) is True
register_before_tool_call_hook(lambda c: False)
assert run_before_tool_call_hooks(ctx) is False
clear_all_global_hooks()
register_before_tool_call_hook(lambda c: (_ for _ in ()).throw(HookAborted("no")))
assert run_before_tool_call_hooks(ctx) is False
clear_all_global_hooks()
register_after_tool_call_hook(lambda c: "replaced")
ctx.tool_result = "orig"
assert run_after_tool_call_hooks(ctx) == "replaced" and ctx.tool_result == "replaced"
clear_all_global_hooks()
register_after_tool_call_hook(lambda c: (_ for _ in ()).throw(HookAborted("stop")))
try:
    run_after_tool_call_hooks(ctx)
    raise AssertionError("HookAborted should propagate from an after hook")
except HookAborted:
    pass
clear_all_global_hooks()


# A decorated method (first parameter self) is not registered.
@before_tool_call
def method(self, ctx):
    return False


assert run_before_tool_call_hooks(ctx) is True
print("ok")
