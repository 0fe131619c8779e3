from crewai._model import REQUIRED
from crewai.events.base_events import BaseEvent


class LLMGuardrailBaseEvent(BaseEvent):
    FIELDS = [("from_task", None), ("from_agent", None)]


class LLMGuardrailStartedEvent(LLMGuardrailBaseEvent):
    TYPE = "llm_guardrail_started"
    FIELDS = [("guardrail_type", None), ("guardrail_name", None), ("guardrail", REQUIRED), ("retry_count", REQUIRED)]

    def model_post_init(self):
        super().model_post_init()
        if callable(self.guardrail):
            self.guardrail = getattr(self.guardrail, "__name__", str(self.guardrail))


class LLMGuardrailCompletedEvent(LLMGuardrailBaseEvent):
    TYPE = "llm_guardrail_completed"
    FIELDS = [("success", REQUIRED), ("result", REQUIRED), ("error", None), ("retry_count", REQUIRED)]
