"""A faithful stub of the CrewAI 1.15.17 surface crewbench's bridge uses
(spec crewai-events-and-hooks.md §6): the event bus and event classes, the
execution hooks, and a scripted crew whose kickoff replays the §2.2 event
sequences (native function calling and ReAct) and calls the hooks at the
§3.5 points. Test-only; stdlib only."""
__version__ = "1.15.17"

from crewai import events  # noqa: F401  (creates the bus, like crewai/__init__.py)
from crewai.events import event_listener  # noqa: F401  (CrewAI's own handlers)
from crewai import hooks  # noqa: F401
from crewai.agent import Agent
from crewai.crew import Crew, CrewOutput
from crewai.llm import LLM
from crewai.task import Task, TaskOutput

__all__ = ["Agent", "Crew", "CrewOutput", "LLM", "Task", "TaskOutput", "__version__"]
