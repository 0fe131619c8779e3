"""crewai.tools: the @tool decorator and the tool-name sanitizer."""
import inspect
import re

from crewai._model import REQUIRED, Model


def sanitize_tool_name(name):
    s = re.sub(r"(?<=[a-z0-9])([A-Z])", r"_\1", name).lower()
    s = re.sub(r"[^a-z0-9_]+", "_", s)
    return re.sub(r"_+", "_", s).strip("_")


class BaseTool(Model):
    FIELDS = [("name", REQUIRED), ("description", ""), ("args_schema", list), ("result_as_answer", False)]

    def run(self, **kwargs):
        raise NotImplementedError

    def to_structured_tool(self):
        from crewai.tools.structured_tool import CrewStructuredTool, args_model
        st = CrewStructuredTool(name=self.name, description=self.description,
                                args_schema=args_model(self.name.replace(" ", "") + "Schema", list(self.args_schema)),
                                result_as_answer=self.result_as_answer)
        object.__setattr__(st, "_original_tool", self)
        return st


class Tool(BaseTool):
    FIELDS = [("func", REQUIRED)]

    def model_dump(self, mode="python", exclude=None, fallback=None):
        return super().model_dump(mode, set(exclude or ()) | {"func"}, fallback)

    def run(self, **kwargs):
        return self.func(**kwargs)


def tool(name):
    def decorator(func):
        params = list(inspect.signature(func).parameters)
        return Tool(name=name, description=(func.__doc__ or "").strip(), args_schema=params, func=func)
    return decorator
