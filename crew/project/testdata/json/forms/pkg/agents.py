from crewai import Agent


class Custom(Agent):
    custom_field: int = 0
