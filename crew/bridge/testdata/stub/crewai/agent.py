import uuid

from crewai._model import REQUIRED, Model
from crewai.events.event_bus import crewai_event_bus as bus
from crewai.events.types.agent_events import (AgentExecutionCompletedEvent, AgentExecutionErrorEvent,
                                              AgentExecutionStartedEvent)


class Agent(Model):
    FIELDS = [("role", REQUIRED), ("goal", ""), ("backstory", ""), ("llm", None), ("tools", list), ("mcps", list),
              ("verbose", False), ("max_retry_limit", 2), ("max_iter", 25), ("id", lambda: uuid.uuid4())]

    def model_post_init(self):
        self.agent_executor = None
        self.mcp_tools = []

    def model_dump(self, mode="python", exclude=None, fallback=None):
        return super().model_dump(mode, set(exclude or ()) | {"agent_executor"}, fallback)

    def execute_task(self, task, context=None):
        """Agent.execute_task: each attempt is one AgentExecutor flow; a
        failed attempt is retried max_retry_limit times."""
        tools = list(self.tools) + list(self.mcp_tools)
        prompt = task.description + ("\n\nContext: " + context if context else "")
        attempt = 0
        while True:
            bus.emit(self, AgentExecutionStartedEvent(agent=self, task=task, tools=tools, task_prompt=prompt))
            try:
                result = self.agent_executor.invoke(task, prompt, tools)
            except Exception as e:
                bus.emit(self, AgentExecutionErrorEvent(agent=self, task=task, error=str(e)))
                attempt += 1
                if attempt > self.max_retry_limit:
                    raise
                continue
            bus.emit(self, AgentExecutionCompletedEvent(agent=self, task=task, output=result))
            return result
