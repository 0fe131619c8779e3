"""crewai.hooks.llm_hooks: LLMCallHookContext and the LLM registries."""
from crewai.hooks.dispatch import HookAborted, InterceptionPoint, dispatch, get_hooks, register_hook, \
    unregister_hook, clear_hooks

PRE, POST = InterceptionPoint.PRE_MODEL_CALL, InterceptionPoint.POST_MODEL_CALL


class LLMCallHookContext:
    def __init__(self, executor=None, response=None, messages=None, llm=None, agent=None, task=None, crew=None):
        self.executor = executor
        self.response = response
        if executor is not None:
            # The same list object as the executor's state: in-place edits persist.
            self.messages = executor.messages
            self.llm = executor.llm
            self.iterations = executor.iterations
            self.agent = executor.agent
            self.task = executor.task
            self.crew = executor.crew
        else:
            self.messages, self.llm, self.iterations = messages, llm, 0
            self.agent, self.task, self.crew = agent, task, crew


def register_before_llm_call_hook(hook):
    register_hook(PRE, hook)


def register_after_llm_call_hook(hook):
    register_hook(POST, hook)


def unregister_before_llm_call_hook(hook):
    return unregister_hook(PRE, hook)


def unregister_after_llm_call_hook(hook):
    return unregister_hook(POST, hook)


def get_before_llm_call_hooks():
    return get_hooks(PRE)


def get_after_llm_call_hooks():
    return get_hooks(POST)


def clear_before_llm_call_hooks():
    return clear_hooks(PRE)


def clear_after_llm_call_hooks():
    return clear_hooks(POST)


def clear_all_llm_call_hooks():
    return clear_before_llm_call_hooks(), clear_after_llm_call_hooks()


def run_before_llm_call_hooks(ctx, hooks=None):
    """False when a hook blocked the call (returned False or raised HookAborted)."""
    try:
        results = dispatch(PRE, ctx, hooks=hooks, verbose=getattr(ctx.agent, "verbose", False))
    except HookAborted:
        return False
    return not any(r is False for r in results)


def run_after_llm_call_hooks(ctx, hooks=None):
    before = ctx.response

    def reduce(c, r):
        if isinstance(r, str):
            c.response = r
    dispatch(POST, ctx, hooks=hooks, reducer=reduce, verbose=getattr(ctx.agent, "verbose", False))
    return ctx.response if ctx.response is not before else None
