from crewai._model import REQUIRED
from crewai.events.base_events import BaseEvent


class AgentLogsStartedEvent(BaseEvent):
    TYPE = "agent_logs_started"
    FIELDS = [("agent_role", REQUIRED), ("task_description", None), ("verbose", False)]


class AgentLogsExecutionEvent(BaseEvent):
    TYPE = "agent_logs_execution"
    FIELDS = [("agent_role", REQUIRED), ("formatted_answer", REQUIRED), ("verbose", False)]
