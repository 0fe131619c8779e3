import os
from crewai import Agent, Crew, Process, Task
from crewai.project import CrewBase, agent, crew, task
from mcp import StdioServerParameters


@CrewBase
class InventoryCrew:
    mcp_server_params = [
        StdioServerParameters(command="python", args=["servers/inventory.py"]),
    ]

    @agent
    def analyst(self) -> Agent:
        return Agent(config=self.agents_config["analyst"], tools=self.get_mcp_tools())

    @task
    def check(self) -> Task:
        return Task(config=self.tasks_config["check"])

    @crew
    def crew(self) -> Crew:
        return Crew(agents=self.agents, tasks=self.tasks, process=Process.sequential)
