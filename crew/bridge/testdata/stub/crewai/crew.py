import uuid

from crewai._model import Model
from crewai.events.event_bus import crewai_event_bus as bus, reset_emission_counter
from crewai.events.types.crew_events import (CrewKickoffCompletedEvent, CrewKickoffFailedEvent,
                                             CrewKickoffStartedEvent)
from crewai.events.types.env_events import DefaultEnvEvent
from crewai.events.types.task_events import TaskCompletedEvent, TaskFailedEvent, TaskStartedEvent
from crewai.experimental.agent_executor import AgentExecutor
from crewai.mcp.client import discover
from crewai.task import TaskOutput

_env_emitted = False


class CrewOutput(Model):
    FIELDS = [("raw", ""), ("tasks_output", list), ("token_usage", dict)]

    def __str__(self):
        return self.raw


class Crew(Model):
    FIELDS = [("name", "crew"), ("agents", list), ("tasks", list), ("id", lambda: uuid.uuid4())]

    def kickoff(self, inputs=None):
        global _env_emitted
        if not _env_emitted:  # once per context (utilities/env.py)
            _env_emitted = True
            bus.emit(None, DefaultEnvEvent())
        reset_emission_counter()  # so default_env and crew_kickoff_started both carry 1
        fut = bus.emit(self, CrewKickoffStartedEvent(crew_name=self.name, crew=self, inputs=inputs))
        if fut is not None:
            fut.result()  # prepare_kickoff waits for these handlers
        for agent in self.agents:  # setup_agents: executors snapshot the LLM hooks here
            if agent.agent_executor is None:
                agent.agent_executor = AgentExecutor(agent, self)
            if not agent.mcp_tools:
                for server in agent.mcps:
                    agent.mcp_tools += discover(server)
        outputs, context = [], None
        try:
            for task in self.tasks:
                bus.emit(task, TaskStartedEvent(context=context, task=task, task_id=str(task.id),
                                                task_name=task.name or task.description))
                try:
                    raw = task.agent.execute_task(task, context)
                except Exception as e:
                    bus.emit(task, TaskFailedEvent(error=str(e), task=task, task_id=str(task.id),
                                                   task_name=task.name or task.description))
                    raise
                out = TaskOutput(description=task.description, name=task.name, raw=raw, agent=task.agent.role)
                bus.emit(task, TaskCompletedEvent(output=out, task=task, task_id=str(task.id),
                                                  task_name=task.name or task.description))
                outputs.append(out)
                context = raw
        except Exception as e:
            bus.emit(self, CrewKickoffFailedEvent(crew_name=self.name, crew=self, error=str(e)))
            raise
        bus.flush()
        final = outputs[-1].raw if outputs else ""
        bus.emit(self, CrewKickoffCompletedEvent(crew_name=self.name, crew=self, output=final,
                                                 total_tokens=120 * sum(a.llm.turn for a in self.agents)))
        return CrewOutput(raw=final, tasks_output=outputs)
