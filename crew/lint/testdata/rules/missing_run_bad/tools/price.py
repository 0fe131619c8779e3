from crewai.tools import BaseTool


class PriceTool(BaseTool):
    name: str = "price_lookup"
    description: str = "Unit price for a SKU."

    async def _arun(self, sku: str) -> str:
        return "9.99"
