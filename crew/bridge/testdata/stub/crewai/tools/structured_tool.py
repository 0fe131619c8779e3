"""crewai.tools.structured_tool.CrewStructuredTool: what CrewAI 1.15.17 hands
the tool hooks as ctx.tool (spec §3.2) on both paths. It is built from the
agent's tool by BaseTool.to_structured_tool(), carries the same name, and
keeps the tool it wraps in the private attribute _original_tool: the MCP
names (server_name, original_tool_name) are only on that one. Its
args_schema is the argument model (a pydantic model class in CrewAI):
here one whose JSON schema knows only the parameters' names."""
from crewai._model import REQUIRED, Model


class CrewStructuredTool(Model):
    FIELDS = [("name", REQUIRED), ("description", ""), ("args_schema", None), ("result_as_answer", False)]


def args_model(name, params):
    """A stand-in for the pydantic model CrewAI builds from a tool's
    parameters: what the bridge reads of it is model_json_schema()."""
    def model_json_schema(cls):
        return {"properties": {p: {"title": p.replace("_", " ").title()} for p in params},
                "required": list(params), "title": name, "type": "object"}
    return type(name, (), {"model_json_schema": classmethod(model_json_schema)})
