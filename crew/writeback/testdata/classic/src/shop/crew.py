from crewai import Agent, Crew, Process, Task
from crewai.mcp import (
    MCPServerHTTP,
    MCPServerSSE,
    MCPServerStdio,
    create_dynamic_tool_filter,
)
from crewai.project import CrewBase, agent, crew, task


def no_writes(context, tool):
    return not tool["name"].startswith("write")


inventory = MCPServerStdio(
    command="python",
    args=["servers/inventory.py"],
    env={"LOG_LEVEL": "warn"},  # not a secret
    cache_tools_list=True,
)

legacy = MCPServerSSE(url="https://legacy.example.com/sse", headers={"X-Client": "crewbench"})

docs = MCPServerHTTP(
    url="https://docs.example.com/mcp",
    tool_filter=create_dynamic_tool_filter(no_writes)
)


@CrewBase
class Shop:
    @agent
    def analyst(self) -> Agent:
        return Agent(
            config=self.agents_config["analyst"],
            mcps=[inventory, legacy, docs, "https://weather.example.com/mcp#get_forecast"],
        )

    @task
    def check(self) -> Task:
        return Task(config=self.tasks_config["check"])

    @crew
    def crew(self) -> Crew:
        return Crew(agents=self.agents, tasks=self.tasks, process=Process.sequential)
