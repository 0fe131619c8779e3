from crewai._model import REQUIRED
from crewai.events.base_events import BaseEvent


class TaskStartedEvent(BaseEvent):
    TYPE = "task_started"
    FIELDS = [("context", REQUIRED), ("task", None)]


class TaskCompletedEvent(BaseEvent):
    TYPE = "task_completed"
    FIELDS = [("output", REQUIRED), ("task", None)]


class TaskFailedEvent(BaseEvent):
    TYPE = "task_failed"
    FIELDS = [("error", REQUIRED), ("task", None)]
