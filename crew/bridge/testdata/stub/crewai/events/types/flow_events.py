from crewai._model import REQUIRED
from crewai.events.base_events import BaseEvent


class FlowStartedEvent(BaseEvent):
    TYPE = "flow_started"
    FIELDS = [("flow_name", REQUIRED), ("inputs", None)]


class FlowFinishedEvent(BaseEvent):
    TYPE = "flow_finished"
    FIELDS = [("flow_name", REQUIRED), ("result", None), ("state", REQUIRED)]


class FlowFailedEvent(BaseEvent):
    TYPE = "flow_failed"
    FIELDS = [("flow_name", REQUIRED), ("error", REQUIRED)]

    def model_dump(self, mode="python", exclude=None, fallback=None):
        d = super().model_dump(mode, exclude, fallback=fallback or repr)
        if "error" in d and mode == "json":
            d["error"] = str(self.error)  # serialised as str
        return d


class FlowPausedEvent(BaseEvent):
    TYPE = "flow_paused"
    FIELDS = [("flow_name", REQUIRED)]


class MethodExecutionPausedEvent(BaseEvent):
    TYPE = "method_execution_paused"
    FIELDS = [("flow_name", REQUIRED), ("method_name", REQUIRED)]
