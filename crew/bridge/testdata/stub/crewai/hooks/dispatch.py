"""crewai.hooks.dispatch: the generic interception points. The legacy tool
and LLM registries are the pre/post_tool_call and pre/post_model_call lists
here, so legacy and generic hooks form one ordered queue."""
import contextlib
import contextvars
import enum
import threading
import time


class InterceptionPoint(str, enum.Enum):
    EXECUTION_START = "execution_start"
    INPUT = "input"
    OUTPUT = "output"
    EXECUTION_END = "execution_end"
    PRE_MODEL_CALL = "pre_model_call"
    POST_MODEL_CALL = "post_model_call"
    PRE_TOOL_CALL = "pre_tool_call"
    POST_TOOL_CALL = "post_tool_call"
    PRE_STEP = "pre_step"
    POST_STEP = "post_step"


class HookAborted(Exception):
    def __init__(self, reason, source=None):
        super().__init__(reason)
        self.reason = reason
        self.source = source


_lock = threading.Lock()
_registry = {p: [] for p in InterceptionPoint}
_scoped = contextvars.ContextVar("crewai_scoped_hooks", default=None)


def register_hook(point, hook):
    with _lock:
        _registry[InterceptionPoint(point)].append(hook)


def unregister_hook(point, hook):
    with _lock:
        lst = _registry[InterceptionPoint(point)]
        if hook in lst:
            lst.remove(hook)
            return True
        return False


def get_hooks(point):
    with _lock:
        return list(_registry[InterceptionPoint(point)])


def clear_hooks(point):
    with _lock:
        lst = _registry[InterceptionPoint(point)]
        n = len(lst)
        lst.clear()
        return n


def clear_all_hooks():
    return {p.value: clear_hooks(p) for p in InterceptionPoint}


def _matches(ctx, agents, tools):
    if tools is not None:
        from crewai.tools import sanitize_tool_name
        if getattr(ctx, "tool_name", None) not in {sanitize_tool_name(t) for t in tools}:
            return False
    if agents is not None and getattr(getattr(ctx, "agent", None), "role", None) not in agents:
        return False
    return True


def filtered(hook, agents, tools):
    if agents is None and tools is None:
        return hook

    def wrapper(ctx):
        if _matches(ctx, agents, tools):
            return hook(ctx)
        return None
    wrapper.__name__ = getattr(hook, "__name__", "hook")
    return wrapper


def on(point, *, agents=None, tools=None):
    def decorator(func):
        register_hook(point, filtered(func, agents, tools))
        return func
    return decorator


@contextlib.contextmanager
def scoped_hooks():
    token = _scoped.set({p: [] for p in InterceptionPoint})
    try:
        yield
    finally:
        _scoped.reset(token)


def register_scoped(point, hook):
    scoped = _scoped.get()
    if scoped is None:
        raise RuntimeError("register_scoped outside scoped_hooks()")
    scoped[InterceptionPoint(point)].append(hook)


def hooks_for(point):
    hooks = get_hooks(point)
    scoped = _scoped.get()
    if scoped:
        hooks += scoped[InterceptionPoint(point)]
    return hooks


def _invoke_hook(point, hook, ctx, verbose):
    """HookAborted propagates; every other exception is swallowed (fail-open)."""
    try:
        return hook(ctx)
    except HookAborted:
        raise
    except Exception as e:  # noqa: BLE001
        if verbose:
            print(f"Error in {point} hook: {e}")
        return None


def dispatch(point, ctx, *, reducer=None, verbose=True, hooks=None):
    """Runs the hooks in order, then emits HookDispatchedEvent (after they
    return, so after a pause it arrives on resume). Returns the results."""
    point = InterceptionPoint(point)
    hooks = hooks_for(point) if hooks is None else hooks
    if not hooks:
        return []
    start = time.perf_counter()
    results, outcome, reason = [], "proceeded", None
    try:
        for h in hooks:
            r = _invoke_hook(point.value, h, ctx, verbose)
            results.append(r)
            if r is False or isinstance(r, str):
                outcome = "modified"
            if reducer is not None:
                reducer(ctx, r)
    except HookAborted as e:
        outcome, reason = "aborted", e.reason
        raise
    finally:
        from crewai.events.event_bus import crewai_event_bus
        from crewai.events.types.hook_events import HookDispatchedEvent
        crewai_event_bus.emit(object(), HookDispatchedEvent(
            interception_point=point.value, outcome=outcome, hook_count=len(hooks),
            duration_ms=(time.perf_counter() - start) * 1000, abort_reason=reason))
    return results
