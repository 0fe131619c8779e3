from crewai import Agent, Crew, Process, Task
from crewai.project import CrewBase, agent, crew, task
from crewai_tools import SerperDevTool


@CrewBase
class MarketBrief:
    @agent
    def researcher(self) -> Agent: return Agent(config=self.agents_config['researcher'], tools=[SerperDevTool()])

    @agent
    def writer(self) -> Agent:
        return Agent(config=self.agents_config['writer'])

    @task
    def research_task(self) -> Task:
        return Task(config=self.tasks_config['research_task'])

    @task
    def brief_task(self) -> Task:
        return Task(config=self.tasks_config['brief_task'])

    @crew
    def crew(self): return Crew(agents=self.agents, tasks=self.tasks, process=Process.sequential)
