import os
from mcp import StdioServerParameters
from crewai import Agent, Crew, Task, Process
from crewai.project import CrewBase, agent, crew, task


@CrewBase
class InventoryCrew:
    mcp_server_params = [
        StdioServerParameters(command="python", args=["mcp_server.py"], env={"LOG_LEVEL": "warning"}),
        {"url": "https://mcp.example.com/mcp", "transport": "streamable-http"},
        {"url": "https://legacy.example.com/sse"},
    ]
    mcp_connect_timeout = 60

    @agent
    def analyst(self) -> Agent:
        return Agent(role="Inventory analyst", goal="Check stock", backstory="Careful.",
                     tools=self.get_mcp_tools("lookup_stock"))

    def lead(self) -> Agent:
        return Agent(role="Lead", goal="Coordinate", backstory="Experienced.", allow_delegation=True)

    @task
    def check(self) -> Task:
        return Task(description="Check stock for {sku}", expected_output="One line", agent=self.analyst())

    @crew
    def crew(self) -> Crew:
        return Crew(agents=self.agents, tasks=self.tasks, process=Process.hierarchical, manager_agent=self.lead())
