from crewai.events.base_events import BaseEvent


class DefaultEnvEvent(BaseEvent):
    TYPE = "default_env"


class CCEnvEvent(BaseEvent):
    TYPE = "cc_env"


class CodexEnvEvent(BaseEvent):
    TYPE = "codex_env"


class CursorEnvEvent(BaseEvent):
    TYPE = "cursor_env"
