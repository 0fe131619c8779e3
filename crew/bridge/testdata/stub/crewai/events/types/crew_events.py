from crewai._model import REQUIRED
from crewai.events.base_events import BaseEvent


class CrewBaseEvent(BaseEvent):
    FIELDS = [("crew_name", REQUIRED), ("crew", None)]


class CrewKickoffStartedEvent(CrewBaseEvent):
    TYPE = "crew_kickoff_started"
    FIELDS = [("inputs", REQUIRED)]


class CrewKickoffCompletedEvent(CrewBaseEvent):
    TYPE = "crew_kickoff_completed"
    FIELDS = [("output", REQUIRED), ("total_tokens", 0)]


class CrewKickoffFailedEvent(CrewBaseEvent):
    TYPE = "crew_kickoff_failed"
    FIELDS = [("error", REQUIRED)]
