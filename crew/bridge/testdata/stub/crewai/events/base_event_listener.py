import abc

from crewai.events.event_bus import crewai_event_bus


class BaseEventListener(abc.ABC):
    verbose = False

    def __init__(self):
        self.setup_listeners(crewai_event_bus)
        crewai_event_bus.validate_dependencies()

    @abc.abstractmethod
    def setup_listeners(self, crewai_event_bus):
        ...
