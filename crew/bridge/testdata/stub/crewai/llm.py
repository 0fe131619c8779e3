"""A scripted LLM. Each call takes the next reply of the script:
{"text": "..."} or {"tool_calls": [{"name": ..., "arguments": {...}}]}.
"{results}" in a text reply is replaced by the tool results seen so far."""
import os
import time
import uuid

from crewai._model import REQUIRED, Model
from crewai.events.event_bus import crewai_event_bus as bus
from crewai.events.types.llm_events import LLMCallCompletedEvent, LLMCallStartedEvent, LLMCallType


class LLM(Model):
    FIELDS = [("model", REQUIRED), ("script", list), ("native", True)]

    def model_post_init(self):
        self.turn = 0

    def supports_function_calling(self):
        return self.native

    def call(self, messages, tools=None, from_task=None, from_agent=None, results=()):
        call_id = str(uuid.uuid4())
        bus.emit(self, LLMCallStartedEvent(from_task=from_task, from_agent=from_agent, model=self.model,
                                           call_id=call_id, messages=[dict(m) for m in messages],
                                           tools=tools, stop_sequences=["\nObservation:"]))
        latency = float(os.environ.get("STUB_LLM_LATENCY_MS", "0"))
        if latency:
            time.sleep(latency / 1000)
        reply = self.script[min(self.turn, len(self.script) - 1)]
        self.turn += 1
        usage = {"prompt_tokens": 100, "completion_tokens": 20, "total_tokens": 120}
        if "tool_calls" in reply:
            calls = [dict(c, id=f"call_{self.turn}_{i}") for i, c in enumerate(reply["tool_calls"])]
            bus.emit(self, LLMCallCompletedEvent(from_task=from_task, from_agent=from_agent, model=self.model,
                                                 call_id=call_id, messages=[dict(m) for m in messages],
                                                 response=calls, call_type=LLMCallType.TOOL_CALL, usage=usage,
                                                 finish_reason="tool_calls"))
            return calls
        text = reply["text"].replace("{results}", "; ".join(results))
        bus.emit(self, LLMCallCompletedEvent(from_task=from_task, from_agent=from_agent, model=self.model,
                                             call_id=call_id, messages=[dict(m) for m in messages], response=text,
                                             call_type=LLMCallType.LLM_CALL, usage=usage, finish_reason="stop"))
        return text
