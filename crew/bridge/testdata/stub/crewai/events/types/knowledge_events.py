from crewai._model import REQUIRED
from crewai.events.base_events import BaseEvent


class KnowledgeBaseEvent(BaseEvent):
    FIELDS = [("from_task", None), ("from_agent", None)]


class KnowledgeRetrievalStartedEvent(KnowledgeBaseEvent):
    TYPE = "knowledge_search_query_started"


class KnowledgeRetrievalCompletedEvent(KnowledgeBaseEvent):
    TYPE = "knowledge_search_query_completed"
    FIELDS = [("query", REQUIRED), ("retrieved_knowledge", REQUIRED)]


class KnowledgeQueryStartedEvent(KnowledgeBaseEvent):
    TYPE = "knowledge_query_started"
    FIELDS = [("task_prompt", REQUIRED)]


class KnowledgeQueryCompletedEvent(KnowledgeBaseEvent):
    TYPE = "knowledge_query_completed"
    FIELDS = [("query", REQUIRED)]


class KnowledgeQueryFailedEvent(KnowledgeBaseEvent):
    TYPE = "knowledge_query_failed"
    FIELDS = [("error", REQUIRED)]


class KnowledgeSearchQueryFailedEvent(KnowledgeBaseEvent):
    TYPE = "knowledge_search_query_failed"
    FIELDS = [("query", REQUIRED), ("error", REQUIRED)]
