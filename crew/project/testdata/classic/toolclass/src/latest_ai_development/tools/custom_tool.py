from crewai.tools import BaseTool
from typing import Optional, Type
from pydantic import BaseModel, Field


class MyCustomToolInput(BaseModel):
    """Input schema for MyCustomTool."""
    argument: str = Field(..., description="Description of the argument.")

class MyCustomTool(BaseTool):
    name: str = "Name of my tool"
    description: str = (
        "Clear description for what this tool is useful for, your agent will need this information to use it."
    )
    args_schema: Type[BaseModel] = MyCustomToolInput

    def _run(self, argument: str) -> str:
        # Implementation goes here
        return "this is an example of a tool output, ignore the assistant's input."


class LookupInput(BaseModel):
    """
    What to look up.

      Indented detail.
    """
    search_query: str = Field(..., description="The query.")
    max_results: int = 3
    region: Optional[str] = Field(None, description="A region code.")
    tags: list[str] = Field(default=[], description="Tags.")


class LookupTool(BaseTool):
    name: str = "Lookup Things"
    description: str = "Looks things up."
    args_schema: Type[BaseModel] = LookupInput
    result_as_answer: bool = True
    max_usage_count: int = 2

    def _run(self, search_query: str, max_results: int = 3) -> str:
        return "found"
