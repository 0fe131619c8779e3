class StaticToolFilter:
    """Not a model: an event embedding an agent whose mcps hold one cannot be
    dumped with model_dump(mode="json") (spec §2.4)."""

    def __init__(self, allowed_tool_names=None, blocked_tool_names=None):
        self.allowed = allowed_tool_names
        self.blocked = blocked_tool_names or []

    def __call__(self, tool):
        name = tool["name"]
        if self.allowed is not None and name not in self.allowed:
            return False
        return name not in self.blocked


def create_static_tool_filter(allowed_tool_names=None, blocked_tool_names=None):
    return StaticToolFilter(allowed_tool_names, blocked_tool_names)
