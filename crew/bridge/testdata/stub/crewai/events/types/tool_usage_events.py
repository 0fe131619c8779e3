from crewai._model import REQUIRED
from crewai.events.base_events import BaseEvent


class ToolUsageEvent(BaseEvent):
    """Abstract base: registering on it receives nothing (exact-class lookup)."""
    FIELDS = [("agent_key", None), ("tool_name", REQUIRED), ("tool_args", REQUIRED), ("tool_class", None),
              ("run_attempts", 0), ("delegations", None), ("agent", None), ("plan_step_number", None),
              ("plan_step_description", None), ("from_task", None), ("from_agent", None)]


class ToolUsageStartedEvent(ToolUsageEvent):
    TYPE = "tool_usage_started"


class ToolUsageFinishedEvent(ToolUsageEvent):
    TYPE = "tool_usage_finished"
    FIELDS = [("started_at", REQUIRED), ("finished_at", REQUIRED), ("from_cache", False), ("output", REQUIRED),
              ("failure", None)]


class ToolUsageErrorEvent(ToolUsageEvent):
    TYPE = "tool_usage_error"
    FIELDS = [("error", REQUIRED)]


class ToolSelectionErrorEvent(ToolUsageEvent):
    TYPE = "tool_selection_error"
    FIELDS = [("error", REQUIRED)]


class ToolValidateInputErrorEvent(ToolUsageEvent):
    TYPE = "tool_validate_input_error"
    FIELDS = [("error", REQUIRED)]


class ToolFailureDetectedEvent(ToolUsageEvent):
    TYPE = "tool_failure_detected"
    FIELDS = [("failure", REQUIRED), ("policy", REQUIRED)]


class ToolExecutionErrorEvent(BaseEvent):
    """Defined but never emitted in 1.15.17."""
    TYPE = "tool_execution_error"
    FIELDS = [("error", REQUIRED), ("tool_name", REQUIRED), ("tool_args", REQUIRED), ("tool_class", None)]
