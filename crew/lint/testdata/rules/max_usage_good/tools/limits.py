from crewai.tools import tool


@tool("Refund", max_usage_count=1)
def refund(order: str) -> str:
    """Refund an order."""
    return "ok"
