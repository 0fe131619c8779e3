"""crewai.mcp.client: a minimal MCP stdio client (newline-delimited
JSON-RPC), emitting CrewAI's MCP events. Native MCP tools open a fresh
session for every call, as CrewAI 1.15 does."""
import datetime
import json
import os
import subprocess
import time

from crewai.events.event_bus import crewai_event_bus as bus
from crewai.events.types.mcp_events import (MCPConnectionCompletedEvent, MCPConnectionFailedEvent,
                                            MCPConnectionStartedEvent, MCPToolExecutionCompletedEvent,
                                            MCPToolExecutionFailedEvent, MCPToolExecutionStartedEvent)
from crewai.tools import BaseTool, sanitize_tool_name


class MCPClient:
    def __init__(self, server, agent=None, task=None):
        self.server, self.agent, self.task = server, agent, task
        self.proc, self.next_id = None, 0

    def _common(self):
        return dict(server_name=self.server.name, transport_type="stdio", from_agent=self.agent, from_task=self.task)

    def connect(self):
        started = datetime.datetime.now()
        t0 = time.perf_counter()
        bus.emit(self, MCPConnectionStartedEvent(connect_timeout=30, **self._common()))
        try:
            env = dict(os.environ, **(self.server.env or {}))
            self.proc = subprocess.Popen([self.server.command, *self.server.args], stdin=subprocess.PIPE,
                                         stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env)
            self.request("initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                                        "clientInfo": {"name": "crewai-stub", "version": "1.15.17"}})
            self._send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        except Exception as e:
            bus.emit(self, MCPConnectionFailedEvent(error=str(e), error_type=type(e).__name__, started_at=started,
                                                    failed_at=datetime.datetime.now(), **self._common()))
            self.close()
            raise
        bus.emit(self, MCPConnectionCompletedEvent(started_at=started, completed_at=datetime.datetime.now(),
                                                   connection_duration_ms=(time.perf_counter() - t0) * 1000,
                                                   **self._common()))

    def _send(self, msg):
        self.proc.stdin.write((json.dumps(msg) + "\n").encode())
        self.proc.stdin.flush()

    def request(self, method, params):
        self.next_id += 1
        rid = self.next_id
        self._send({"jsonrpc": "2.0", "id": rid, "method": method, "params": params})
        while True:
            line = self.proc.stdout.readline()
            if not line:
                raise ConnectionError(f"MCP server {self.server.name} closed the connection")
            msg = json.loads(line)
            if msg.get("id") == rid:
                if "error" in msg:
                    raise RuntimeError(msg["error"].get("message", "JSON-RPC error"))
                return msg["result"]

    def close(self):
        if self.proc is not None:
            try:
                self.proc.stdin.close()
                self.proc.wait(timeout=5)
            except Exception:
                self.proc.kill()
            self.proc = None

    def list_tools(self):
        return self.request("tools/list", {})["tools"]

    def call_tool(self, name, args):
        started = datetime.datetime.now()
        t0 = time.perf_counter()
        bus.emit(self, MCPToolExecutionStartedEvent(tool_name=name, tool_args=dict(args), **self._common()))
        try:
            res = self.request("tools/call", {"name": name, "arguments": args})
        except Exception as e:
            bus.emit(self, MCPToolExecutionFailedEvent(tool_name=name, tool_args=dict(args), error=str(e),
                                                       error_type=type(e).__name__, started_at=started,
                                                       failed_at=datetime.datetime.now(), **self._common()))
            raise
        text = "\n".join(c.get("text", "") for c in res.get("content", []) if c.get("type") == "text")
        bus.emit(self, MCPToolExecutionCompletedEvent(tool_name=name, tool_args=dict(args), result=text,
                                                      started_at=started, completed_at=datetime.datetime.now(),
                                                      execution_duration_ms=(time.perf_counter() - t0) * 1000,
                                                      **self._common()))
        if res.get("isError"):
            raise RuntimeError(text)
        return text


class MCPNativeTool(BaseTool):
    FIELDS = [("server", None), ("server_name", ""), ("original_tool_name", "")]

    def run(self, **kwargs):
        client = MCPClient(self.server)
        client.connect()
        try:
            return client.call_tool(self.original_tool_name, kwargs)
        finally:
            client.close()


def discover(server, agent=None, task=None):
    """Discovery: one session, tools/list, the filter; LLM-visible names are
    sanitize(server + "_" + tool)."""
    client = MCPClient(server, agent, task)
    client.connect()
    try:
        tools = client.list_tools()
    finally:
        client.close()
    out = []
    for t in tools:
        if server.tool_filter is not None and not server.tool_filter(t):
            continue
        props = list((t.get("inputSchema") or {}).get("properties", {}))
        out.append(MCPNativeTool(name=sanitize_tool_name(server.name + "_" + t["name"]),
                                 description=t.get("description", ""), args_schema=props, server=server,
                                 server_name=server.name, original_tool_name=t["name"]))
    return out
