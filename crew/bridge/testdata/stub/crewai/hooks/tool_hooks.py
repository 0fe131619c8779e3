"""crewai.hooks.tool_hooks: ToolCallHookContext and the tool registries."""
from crewai.hooks.dispatch import HookAborted, InterceptionPoint, dispatch, get_hooks, register_hook, \
    unregister_hook, clear_hooks

PRE, POST = InterceptionPoint.PRE_TOOL_CALL, InterceptionPoint.POST_TOOL_CALL


class ToolCallHookContext:
    def __init__(self, tool_name, tool_input, tool, agent=None, task=None, crew=None, tool_result=None,
                 raw_tool_result=None):
        self.tool_name = tool_name
        self.tool_input = tool_input
        self.tool = tool
        self.agent = agent
        self.task = task
        self.crew = crew
        self.tool_result = tool_result
        self.raw_tool_result = raw_tool_result

    def request_human_input(self, prompt, default_message="Press Enter to continue, or provide feedback:"):
        print(prompt)
        return input(default_message)


def register_before_tool_call_hook(hook):
    register_hook(PRE, hook)


def register_after_tool_call_hook(hook):
    register_hook(POST, hook)


def unregister_before_tool_call_hook(hook):
    return unregister_hook(PRE, hook)


def unregister_after_tool_call_hook(hook):
    return unregister_hook(POST, hook)


def get_before_tool_call_hooks():
    return get_hooks(PRE)


def get_after_tool_call_hooks():
    return get_hooks(POST)


def clear_before_tool_call_hooks():
    return clear_hooks(PRE)


def clear_after_tool_call_hooks():
    return clear_hooks(POST)


def clear_all_tool_call_hooks():
    return clear_before_tool_call_hooks(), clear_after_tool_call_hooks()


def run_before_tool_call_hooks(ctx):
    """True: proceed. False: blocked (a hook returned False, tested with
    `is False`, or raised HookAborted)."""
    try:
        results = dispatch(PRE, ctx, verbose=getattr(ctx.agent, "verbose", False))
    except HookAborted:
        return False
    return not any(r is False for r in results)


def run_after_tool_call_hooks(ctx):
    """A str a hook returns (or assigns to ctx.tool_result) replaces the
    result; HookAborted propagates. Returns the new result or None."""
    before = ctx.tool_result

    def reduce(c, r):
        if isinstance(r, str):
            c.tool_result = r
    dispatch(POST, ctx, reducer=reduce, verbose=getattr(ctx.agent, "verbose", False))
    return ctx.tool_result if ctx.tool_result is not before else None
