import os
from crewai import Agent, Crew, LLM, PlanningConfig, Process, Task
from crewai.project import CrewBase, agent, crew, task
from planner.converters import StrictConverter

STEPS = int(os.environ.get("STEPS", "5"))


class LocalConverter(StrictConverter):
    pass


@CrewBase
class PlannerCrew:
    @agent
    def planner(self) -> Agent:
        return Agent(
            config=self.agents_config["planner"],
            planning_config=PlanningConfig(
                max_attempts=2,
                reasoning_effort="high",
                system_prompt="You plan " + "carefully.",
                max_steps=STEPS,
                llm=LLM(model="openai/gpt-4o-mini", temperature=0.2),
            ),
        )

    @agent
    def thinker(self) -> Agent:
        return Agent(config=self.agents_config["thinker"], reasoning=True, max_reasoning_attempts=2,
                     planning_config={"max_steps": 4, "llm": "openai/gpt-4o"})

    @agent
    def loose(self) -> Agent:
        return Agent(config=self.agents_config["loose"], planning_config=self.make_config())

    @task
    def plan_task(self) -> Task:
        return Task(config=self.tasks_config["plan_task"], converter_cls=StrictConverter)

    @task
    def think_task(self) -> Task:
        return Task(config=self.tasks_config["think_task"], converter_cls=LocalConverter)

    @crew
    def crew(self) -> Crew:
        return Crew(agents=self.agents, tasks=self.tasks, process=Process.sequential)
