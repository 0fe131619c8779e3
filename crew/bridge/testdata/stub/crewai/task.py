import uuid

from crewai._model import REQUIRED, Model


class TaskOutput(Model):
    FIELDS = [("description", ""), ("name", None), ("raw", ""), ("agent", "")]


class Task(Model):
    FIELDS = [("description", REQUIRED), ("expected_output", ""), ("agent", None), ("name", None),
              ("id", lambda: uuid.uuid4())]
