from crewai.tools import BaseTool


class CurrencyConverter(BaseTool):
    name: str = "Currency converter"
    description: str = "Converts amounts between currencies."

    def _run(self, amount: float, source: str, target: str) -> str:
        return f"{amount} {source} in {target}"
