"""crewai.events.base_events: BaseEvent and its 15 envelope fields, in order."""
import datetime
import json
import uuid

from crewai._model import REQUIRED, Model, to_serializable


def _now():
    return datetime.datetime.now(datetime.timezone.utc)


class BaseEvent(Model):
    FIELDS = [
        ("timestamp", _now),
        ("type", REQUIRED),
        ("source_fingerprint", None),
        ("source_type", None),
        ("fingerprint_metadata", None),
        ("task_id", None),
        ("task_name", None),
        ("agent_id", None),
        ("agent_role", None),
        ("event_id", lambda: str(uuid.uuid4())),
        ("parent_event_id", None),
        ("previous_event_id", None),
        ("triggered_by_event_id", None),
        ("started_event_id", None),
        ("emission_sequence", None),
    ]
    # Subclasses set TYPE, the Literal default of their `type` field.
    TYPE = None

    def __init__(self, **kw):
        kw.setdefault("type", self.TYPE)
        super().__init__(**kw)

    def model_post_init(self):
        # LLM, tool, MCP, memory, knowledge, guardrail and reasoning events
        # fill the task/agent fields from from_task/from_agent, then null them.
        if "from_task" in self.model_fields or "from_agent" in self.model_fields:
            task = getattr(self, "from_task", None)
            agent = getattr(self, "from_agent", None)
            if task is not None:
                self.task_id = self.task_id or str(getattr(task, "id", "") or "") or None
                self.task_name = self.task_name or getattr(task, "name", None) or getattr(task, "description", None)
                self.from_task = None
            if agent is not None:
                self.agent_id = self.agent_id or str(getattr(agent, "id", "") or "") or None
                self.agent_role = self.agent_role or getattr(agent, "role", None)
                self.from_agent = None

    def to_json(self, exclude=None):
        d = to_serializable(self)
        for k in exclude or ():
            d.pop(k, None)
        return d

    def model_dump_json(self, **kw):
        return json.dumps(self.model_dump("json", **kw))
