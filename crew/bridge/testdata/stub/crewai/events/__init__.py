"""crewai.events: the bus, the listener base and lazy event classes.

Like CrewAI 1.15.17, BaseEvent and CrewAIEventsBus are not exported here
(they live in crewai.events.base_events and crewai.events.event_bus), and a
few classes are not lazy attributes and must be imported from their module
(HookDispatchedEvent, LLMThinkingChunkEvent, DefaultEnvEvent,
FlowPausedEvent, MethodExecutionPausedEvent)."""
import importlib

from crewai.events.base_event_listener import BaseEventListener
from crewai.events.event_bus import CircularDependencyError, Depends, crewai_event_bus

_NOT_LAZY = {"HookDispatchedEvent", "LLMThinkingChunkEvent", "DefaultEnvEvent", "FlowPausedEvent",
             "MethodExecutionPausedEvent"}
_MODULES = ["crew_events", "task_events", "agent_events", "llm_events", "tool_usage_events", "mcp_events",
            "flow_events", "logging_events", "memory_events", "knowledge_events", "llm_guardrail_events",
            "reasoning_events"]


def __getattr__(name):
    if name.endswith("Event") and name not in _NOT_LAZY:
        for m in _MODULES:
            mod = importlib.import_module("crewai.events.types." + m)
            if hasattr(mod, name):
                return getattr(mod, name)
    raise AttributeError(f"module 'crewai.events' has no attribute {name!r}")


__all__ = ["BaseEventListener", "crewai_event_bus", "Depends", "CircularDependencyError"]
