"""crewai.agents.parser: the parsed answer CrewAI 1.15.17 puts in
agent_logs_execution.formatted_answer. A dataclass, so model_dump gives
its fields, not its repr."""
from dataclasses import dataclass


@dataclass
class AgentFinish:
    thought: str
    output: str
    text: str
