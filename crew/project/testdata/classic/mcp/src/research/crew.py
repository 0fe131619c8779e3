import os
from crewai import Agent, Crew, Process, Task, LLM
from crewai.project import CrewBase, agent, crew, task, tool
from crewai.mcp import (
    MCPServerStdio,
    MCPServerHTTP,
    MCPServerSSE,
    create_static_tool_filter,
    create_dynamic_tool_filter,
)
from crewai_tools import SerperDevTool, FileReadTool

WEATHER_URL = "https://weather.example.com/mcp"

files_server = MCPServerStdio(
    command="npx",
    args=["-y", "@modelcontextprotocol/server-filesystem", "./data"],
    env={"LOG_LEVEL": "warn", "FS_TOKEN": os.environ["FS_TOKEN"]},
    tool_filter=create_static_tool_filter(
        allowed_tool_names=["read_text_file", "list_directory"],
        blocked_tool_names=["write_file"],
    ),
    cache_tools_list=True,
)

github = MCPServerHTTP(
    url="https://api.githubcopilot.com/mcp/",
    headers={"Authorization": f"Bearer {os.getenv('GITHUB_TOKEN')}"},
)

legacy = MCPServerSSE(url="https://legacy.example.com/sse", headers={"X-Key": os.getenv("LEGACY_KEY", "dev-key")})


def no_writes(context, tool):
    return not tool["name"].startswith("write")


@CrewBase
class Research():
    """Research crew"""

    @agent
    def researcher(self) -> Agent:
        return Agent(
            config=self.agents_config['researcher'],
            tools=[SerperDevTool(), FileReadTool(file_path="data/notes.txt")],
            mcps=[files_server, WEATHER_URL + "#get_forecast", "notion#search"],
            llm=LLM(model="openai/gpt-4o-mini", temperature=0.1),
            verbose=True,
        )

    @agent
    def analyst(self) -> Agent:
        inventory = MCPServerStdio(
            command="python",
            args=["servers/inventory.py", "--db", DB_PATH],
            tool_filter=create_dynamic_tool_filter(no_writes),
        )
        return Agent(
            config=self.agents_config['analyst'],
            mcps=[inventory, github, legacy],
            max_iter=self.max_iter_value,
        )

    @tool
    def lookup(self):
        return SerperDevTool()

    @task
    def analysis_task(self) -> Task:
        return Task(config=self.tasks_config['analysis_task'], agent=self.analyst())

    @task
    def research_task(self) -> Task:
        return Task(
            config=self.tasks_config['research_task'],
            context=[self.analysis_task()],
        )

    @crew
    def crew(self) -> Crew:
        return Crew(
            agents=self.agents,
            tasks=self.tasks,
            process=Process.hierarchical,
            manager_llm="openai/gpt-4o",
            cache=True,
        )
