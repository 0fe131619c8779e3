from crewai._model import REQUIRED
from crewai.events.base_events import BaseEvent


class MemoryBaseEvent(BaseEvent):
    FIELDS = [("from_task", None), ("from_agent", None)]


class MemorySaveStartedEvent(MemoryBaseEvent):
    TYPE = "memory_save_started"
    FIELDS = [("value", None), ("metadata", None)]


class MemorySaveCompletedEvent(MemoryBaseEvent):
    TYPE = "memory_save_completed"
    FIELDS = [("value", REQUIRED), ("metadata", None), ("save_time_ms", REQUIRED)]


class MemorySaveFailedEvent(MemoryBaseEvent):
    TYPE = "memory_save_failed"
    FIELDS = [("value", None), ("metadata", None), ("error", REQUIRED)]


class MemoryQueryStartedEvent(MemoryBaseEvent):
    TYPE = "memory_query_started"
    FIELDS = [("query", REQUIRED), ("limit", REQUIRED), ("score_threshold", None)]


class MemoryQueryCompletedEvent(MemoryBaseEvent):
    TYPE = "memory_query_completed"
    FIELDS = [("query", REQUIRED), ("limit", REQUIRED), ("score_threshold", None), ("results", REQUIRED),
              ("query_time_ms", REQUIRED)]


class MemoryQueryFailedEvent(MemoryBaseEvent):
    TYPE = "memory_query_failed"
    FIELDS = [("query", REQUIRED), ("limit", REQUIRED), ("score_threshold", None), ("error", REQUIRED)]


class MemoryRetrievalStartedEvent(MemoryBaseEvent):
    TYPE = "memory_retrieval_started"


class MemoryRetrievalCompletedEvent(MemoryBaseEvent):
    TYPE = "memory_retrieval_completed"
    FIELDS = [("memory_content", REQUIRED), ("retrieval_time_ms", REQUIRED)]


class MemoryRetrievalFailedEvent(MemoryBaseEvent):
    TYPE = "memory_retrieval_failed"
    FIELDS = [("error", REQUIRED)]
