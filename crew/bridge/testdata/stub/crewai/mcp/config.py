from crewai._model import REQUIRED, Model


class MCPServerStdio(Model):
    FIELDS = [("name", REQUIRED), ("command", REQUIRED), ("args", list), ("env", None), ("tool_filter", None)]
