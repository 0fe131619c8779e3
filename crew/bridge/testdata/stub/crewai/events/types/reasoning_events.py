from crewai._model import REQUIRED
from crewai.events.base_events import BaseEvent


class ReasoningEvent(BaseEvent):
    FIELDS = [("task_id", REQUIRED), ("agent_role", REQUIRED), ("attempt", 1), ("from_task", None), ("from_agent", None)]


class AgentReasoningStartedEvent(ReasoningEvent):
    TYPE = "agent_reasoning_started"


class AgentReasoningCompletedEvent(ReasoningEvent):
    TYPE = "agent_reasoning_completed"
    FIELDS = [("plan", REQUIRED), ("ready", REQUIRED)]


class AgentReasoningFailedEvent(ReasoningEvent):
    TYPE = "agent_reasoning_failed"
    FIELDS = [("error", REQUIRED)]
