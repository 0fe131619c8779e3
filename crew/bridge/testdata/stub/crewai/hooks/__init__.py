"""crewai.hooks: execution hooks (spec §3)."""
from crewai.hooks.decorators import after_llm_call, after_tool_call, before_llm_call, before_tool_call
from crewai.hooks.dispatch import HookAborted, InterceptionPoint, clear_all_hooks
from crewai.hooks.llm_hooks import (LLMCallHookContext, clear_after_llm_call_hooks, clear_all_llm_call_hooks,
                                    clear_before_llm_call_hooks, get_after_llm_call_hooks,
                                    get_before_llm_call_hooks, register_after_llm_call_hook,
                                    register_before_llm_call_hook, unregister_after_llm_call_hook,
                                    unregister_before_llm_call_hook)
from crewai.hooks.tool_hooks import (ToolCallHookContext, clear_after_tool_call_hooks, clear_all_tool_call_hooks,
                                     clear_before_tool_call_hooks, get_after_tool_call_hooks,
                                     get_before_tool_call_hooks, register_after_tool_call_hook,
                                     register_before_tool_call_hook, unregister_after_tool_call_hook,
                                     unregister_before_tool_call_hook)


def clear_all_global_hooks():
    # As CrewAI 1.15.17 (hooks/__init__.py:46-86): the LLM hooks first, each
    # through this module's global name, and these counts.
    llm = clear_all_llm_call_hooks()
    tool = clear_all_tool_call_hooks()
    return {"llm_hooks": llm, "tool_hooks": tool, "total": (llm[0] + tool[0], llm[1] + tool[1])}
