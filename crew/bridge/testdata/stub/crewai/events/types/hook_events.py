from crewai._model import REQUIRED
from crewai.events.base_events import BaseEvent


class HookDispatchedEvent(BaseEvent):
    TYPE = "hook_dispatched"
    FIELDS = [("interception_point", REQUIRED), ("outcome", REQUIRED), ("hook_count", REQUIRED),
              ("duration_ms", REQUIRED), ("abort_reason", None), ("abort_source", None)]
