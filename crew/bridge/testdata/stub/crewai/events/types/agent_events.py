from crewai._model import REQUIRED
from crewai.events.base_events import BaseEvent


class AgentExecutionStartedEvent(BaseEvent):
    TYPE = "agent_execution_started"
    FIELDS = [("agent", REQUIRED), ("task", REQUIRED), ("tools", REQUIRED), ("task_prompt", REQUIRED)]


class AgentExecutionCompletedEvent(BaseEvent):
    TYPE = "agent_execution_completed"
    FIELDS = [("agent", REQUIRED), ("task", REQUIRED), ("output", REQUIRED)]


class AgentExecutionErrorEvent(BaseEvent):
    TYPE = "agent_execution_error"
    FIELDS = [("agent", REQUIRED), ("task", REQUIRED), ("error", REQUIRED)]
