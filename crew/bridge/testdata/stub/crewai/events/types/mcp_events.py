from crewai._model import REQUIRED
from crewai.events.base_events import BaseEvent


class MCPEvent(BaseEvent):
    FIELDS = [("server_name", REQUIRED), ("server_url", None), ("transport_type", None),
              ("from_agent", None), ("from_task", None)]


class MCPConnectionStartedEvent(MCPEvent):
    TYPE = "mcp_connection_started"
    FIELDS = [("connect_timeout", None), ("is_reconnect", False)]


class MCPConnectionCompletedEvent(MCPEvent):
    TYPE = "mcp_connection_completed"
    FIELDS = [("started_at", None), ("completed_at", None), ("connection_duration_ms", None), ("is_reconnect", False)]


class MCPConnectionFailedEvent(MCPEvent):
    TYPE = "mcp_connection_failed"
    FIELDS = [("error", REQUIRED), ("error_type", None), ("started_at", None), ("failed_at", None)]


class MCPToolExecutionStartedEvent(MCPEvent):
    TYPE = "mcp_tool_execution_started"
    FIELDS = [("tool_name", REQUIRED), ("tool_args", None)]


class MCPToolExecutionCompletedEvent(MCPEvent):
    TYPE = "mcp_tool_execution_completed"
    FIELDS = [("tool_name", REQUIRED), ("tool_args", None), ("result", None), ("started_at", None),
              ("completed_at", None), ("execution_duration_ms", None)]


class MCPToolExecutionFailedEvent(MCPEvent):
    TYPE = "mcp_tool_execution_failed"
    FIELDS = [("tool_name", REQUIRED), ("tool_args", None), ("error", REQUIRED), ("error_type", None),
              ("started_at", None), ("failed_at", None)]
