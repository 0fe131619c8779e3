from crewai.tools import BaseTool
from pydantic import BaseModel, Field


class ZetaTool(BaseTool):
    """Defined first, but dir(module) lists ForecastLookup before it."""

    name: str = "zeta"
    description: str = "Not the one CrewAI loads."

    def _run(self) -> str:
        return "zeta"


class ForecastInput(BaseModel):
    name: str = Field(..., description="A model field called name, not a tool.")


class ForecastInputs(BaseModel):
    city: str = Field(..., description="City name.")
    days: int = Field(2, description="Number of days.")


class ForecastLookup(BaseTool):
    name: str = "forecast_lookup"
    description: str = "Look up the forecast for a city."
    args_schema: type[BaseModel] = ForecastInputs
    result_as_answer: bool = True
    max_usage_count: int | None = 2

    def _run(self, city: str, days: int = 2) -> str:
        return f"{city}: sunny for {days} days."
