"""crewai.events.types: one module per event family (spec §2.3)."""
