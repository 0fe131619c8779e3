import enum

from crewai._model import REQUIRED
from crewai.events.base_events import BaseEvent


class LLMCallType(str, enum.Enum):
    TOOL_CALL = "tool_call"
    LLM_CALL = "llm_call"


class LLMEventBase(BaseEvent):
    FIELDS = [("from_task", None), ("from_agent", None), ("model", None), ("call_id", REQUIRED)]


class LLMCallStartedEvent(LLMEventBase):
    TYPE = "llm_call_started"
    FIELDS = [("messages", None), ("tools", None), ("callbacks", None), ("available_functions", None),
              ("temperature", None), ("top_p", None), ("max_tokens", None), ("stream", None), ("seed", None),
              ("stop_sequences", None), ("frequency_penalty", None), ("presence_penalty", None), ("n", None)]


class LLMCallCompletedEvent(LLMEventBase):
    TYPE = "llm_call_completed"
    FIELDS = [("messages", None), ("response", REQUIRED), ("call_type", REQUIRED), ("usage", None),
              ("finish_reason", None), ("response_id", None)]


class LLMCallFailedEvent(LLMEventBase):
    TYPE = "llm_call_failed"
    FIELDS = [("error", REQUIRED)]


class LLMStreamChunkEvent(LLMEventBase):
    TYPE = "llm_stream_chunk"
    FIELDS = [("chunk", REQUIRED), ("tool_call", None), ("call_type", None), ("response_id", None)]


class LLMThinkingChunkEvent(LLMEventBase):
    TYPE = "llm_thinking_chunk"
    FIELDS = [("chunk", REQUIRED), ("response_id", None)]
