from crewai.tools import tool


@tool("Unit Converter")
def convert(
    km: float,
) -> str:
    return f"{km * 0.621371:.1f} mi"
