"""crewai.hooks.decorators: register globally at decoration time and return
the original function. A function whose first of two or more parameters is
`self` is not registered (a @CrewBase method)."""
import inspect

from crewai.hooks.dispatch import InterceptionPoint, filtered, register_hook


def _is_method(func):
    try:
        params = list(inspect.signature(func).parameters)
    except (TypeError, ValueError):
        return False
    return len(params) >= 2 and params[0] == "self"


def _decorator(point, func, agents=None, tools=None):
    def register(f):
        if not _is_method(f):
            register_hook(point, filtered(f, agents, tools))
        return f
    return register(func) if func is not None else register


def before_llm_call(func=None, *, agents=None):
    return _decorator(InterceptionPoint.PRE_MODEL_CALL, func, agents)


def after_llm_call(func=None, *, agents=None):
    return _decorator(InterceptionPoint.POST_MODEL_CALL, func, agents)


def before_tool_call(func=None, *, tools=None, agents=None):
    return _decorator(InterceptionPoint.PRE_TOOL_CALL, func, agents, tools)


def after_tool_call(func=None, *, tools=None, agents=None):
    return _decorator(InterceptionPoint.POST_TOOL_CALL, func, agents, tools)
