"""A classic CrewAI project for crewbench's watch tests, run as
`python -m stubcrew.main [native|react|fail-llm|bench N]` against the stub
crewai package. It uses a Python @tool and, when STUB_MCP_COMMAND holds a
JSON argv, the weather MCP server (native MCP tools, with a static tool
filter, which is what makes CrewAI's model_dump fail on agent events).

Environment: STUB_CLEAR_HOOKS=1 calls clear_all_global_hooks() before the
kickoff; STUB_SCOPED=1 runs the kickoff inside scoped_handlers();
STUB_DUMP_EVENTS=PATH writes every event's model_dump to PATH."""
import json
import os
import sys

from crewai import LLM, Agent, Crew, Task
from crewai.events import crewai_event_bus
from crewai.mcp import MCPServerStdio, create_static_tool_filter
from crewai.tools import tool


@tool("Word Counter")
def count_words(text: str) -> str:
    """Count the words in a text."""
    if os.environ.get("STUB_DIE_IN_TOOL"):
        # The crew process dies mid-run, a moment into the tool (events
        # emitted within microseconds of a hard crash cannot be saved).
        import time
        time.sleep(0.3)
        os._exit(3)
    print("word_counter received " + json.dumps({"text": text}, sort_keys=True), flush=True)
    return f"{len(text.split())} words"


def mcps():
    argv = json.loads(os.environ.get("STUB_MCP_COMMAND", "[]"))
    if not argv:
        return []
    return [MCPServerStdio(name="weather", command=argv[0], args=argv[1:],
                           tool_filter=create_static_tool_filter(allowed_tool_names=["getForecast"]))]


def native_script(with_mcp):
    calls = [{"tool_calls": [{"name": "word_counter", "arguments": {"text": "one two three"}}]}]
    if with_mcp:
        calls.append({"tool_calls": [{"name": "weather_get_forecast", "arguments": {"city": "Berlin", "days": 1}}]})
    return calls + [{"text": "Final Answer: {results}"}]


def react_script(with_mcp):
    steps = [{"text": 'Thought: count\nAction: Word Counter\nAction Input: {"text": "one two three"}'}]
    if with_mcp:
        steps.append({"text": 'Thought: weather\nAction: weather_get_forecast\nAction Input: {"city": "Berlin", "days": 1}'})
    return steps + [{"text": "Thought: done\nFinal Answer: {results}"}]


def build(mode, n_bench=0):
    servers = mcps() if mode != "bench" else []
    if mode == "react":
        llm = LLM(model="stub/react-model", script=react_script(bool(servers)), native=False)
    elif mode == "bench":
        # Tasks of five tool rounds each (30 events per task, with or
        # without the bridge when there are no breakpoints), so histories
        # stay as short as in real crews.
        per_task = [{"tool_calls": [{"name": "word_counter", "arguments": {"text": "a b"}}]}] * 5
        per_task = per_task + [{"text": "Final Answer: done"}]
        n_tasks = max(1, -(-n_bench // 30))
        llm = LLM(model="stub/native-model", script=per_task * n_tasks)
    else:
        llm = LLM(model="stub/native-model", script=native_script(bool(servers)))
    agent = Agent(role="Researcher", goal="Answer with tools.", llm=llm, tools=[count_words], mcps=servers)
    tasks = [Task(description="Count the words and check the weather.", expected_output="a summary", agent=agent,
                  name="research")]
    if mode == "bench":
        tasks = [Task(description=f"Count words, round {i}.", agent=agent, name=f"count_{i}") for i in range(n_tasks)]
    return Crew(name="stub_crew", agents=[agent], tasks=tasks)


def dump_events(path):
    """Writes every event as model_dump gives it, without the object fields
    (spec §2.4), one JSON line each: what the bridge's lines must carry."""
    import threading
    from crewai.events.base_events import BaseEvent
    objects = {"agent", "task", "crew", "from_agent", "from_task", "tools", "callbacks", "available_functions"}
    out, lock = open(path, "w"), threading.Lock()

    def on(source, event):
        line = json.dumps(event.model_dump(mode="json", exclude=objects, fallback=repr))
        with lock:
            out.write(line + "\n")
            out.flush()
    classes, stack = set(), [BaseEvent]
    while stack:
        for sub in stack.pop().__subclasses__():
            classes.add(sub)
            stack.append(sub)
    for cls in classes:
        crewai_event_bus.register_handler(cls, on)


def main(argv):
    mode = argv[0] if argv else "native"
    n = int(argv[1]) if mode == "bench" and len(argv) > 1 else 0
    if os.environ.get("STUB_DUMP_EVENTS"):
        dump_events(os.environ["STUB_DUMP_EVENTS"])
    if os.environ.get("STUB_CLEAR_HOOKS"):
        from crewai.hooks import clear_all_global_hooks
        clear_all_global_hooks()
    if mode == "fail-llm":
        from crewai.hooks import before_llm_call

        @before_llm_call
        def block(ctx):
            return False
        mode = "native"
    crew = build(mode, n)
    if os.environ.get("STUB_SPAWN_CHILD"):
        import subprocess
        child = subprocess.Popen(["sleep", "300"])
        print(f"child pid {child.pid}", flush=True)
    if os.environ.get("STUB_SCOPED"):
        with crewai_event_bus.scoped_handlers():
            out = crew.kickoff(inputs={"topic": "words"})
    else:
        out = crew.kickoff(inputs={"topic": "words"})
    print("FINAL: " + out.raw, flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
