"""crewai.events.event_listener: CrewAI's own listener singleton. The real
one registers 85 sync handlers at import (console output, telemetry); this
one registers cheap handlers on the same common classes, so an emit costs
what it costs in CrewAI (one pool submit) with or without crewbench."""
from crewai.events.base_event_listener import BaseEventListener
from crewai.events.types import (agent_events, crew_events, flow_events, llm_events, logging_events, mcp_events,
                                 task_events, tool_usage_events)


class EventListener(BaseEventListener):
    def __init__(self):
        self.counts = {}
        super().__init__()

    def setup_listeners(self, crewai_event_bus):
        for mod in (crew_events, task_events, agent_events, llm_events, tool_usage_events, mcp_events, flow_events,
                    logging_events):
            for name in dir(mod):
                cls = getattr(mod, name)
                if isinstance(cls, type) and name.endswith("Event") and getattr(cls, "TYPE", None):
                    crewai_event_bus.on(cls)(self._count)

    def _count(self, source, event):
        self.counts[event.type] = self.counts.get(event.type, 0) + 1


event_listener = EventListener()
