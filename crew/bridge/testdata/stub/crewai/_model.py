"""A tiny stand-in for the parts of pydantic.BaseModel the stub needs.

The stub must run with nothing but the standard library, so events, agents
and tasks are plain classes with ordered fields and a model_dump that follows
pydantic's rules where a bridge can tell the difference: field order (a
redeclared base field keeps its base position), mode="json", exclude=, and
fallback= (without it, an unknown type raises PydanticSerializationError,
which is how CrewAI's StaticToolFilter failure shows up).
"""
import dataclasses
import datetime
import enum
import uuid

REQUIRED = object()


class PydanticSerializationError(ValueError):
    """Raised like pydantic_core.PydanticSerializationError."""


class Model:
    """Fields are declared as FIELDS = [(name, default), ...]; a callable
    default is a factory. Required fields use REQUIRED."""

    FIELDS = []
    model_fields = {}

    def __init_subclass__(cls, **kw):
        super().__init_subclass__(**kw)
        fields = dict(getattr(cls.__mro__[1], "model_fields", {}))
        for name, default in cls.__dict__.get("FIELDS", []):
            fields[name] = default  # a redeclared field keeps its position
        cls.model_fields = fields

    def __init__(self, **kw):
        for name, default in self.model_fields.items():
            if name in kw:
                value = kw.pop(name)
            elif default is REQUIRED:
                raise TypeError(f"{type(self).__name__}: field {name!r} is required")
            elif callable(default):  # a factory: list, dict, a lambda
                value = default()
            else:
                value = default
            object.__setattr__(self, name, value)
        if kw:
            raise TypeError(f"{type(self).__name__}: unknown fields {sorted(kw)}")
        self.model_post_init()

    def model_post_init(self):
        pass

    def model_dump(self, mode="python", exclude=None, fallback=None):
        exclude = exclude or ()
        return {name: _dump(getattr(self, name), mode, fallback)
                for name in self.model_fields if name not in exclude}


def _dump(v, mode, fallback):
    if v is None or isinstance(v, (bool, int, float, str)):
        return v
    if isinstance(v, enum.Enum):
        return v.value if mode == "json" else v
    if isinstance(v, uuid.UUID):
        return str(v) if mode == "json" else v
    if isinstance(v, datetime.datetime):
        if mode != "json":
            return v
        s = v.isoformat()
        return s[:-6] + "Z" if s.endswith("+00:00") else s
    if isinstance(v, Model):
        return v.model_dump(mode, None, fallback)
    if dataclasses.is_dataclass(v) and not isinstance(v, type):  # as pydantic: the fields
        return {f.name: _dump(getattr(v, f.name), mode, fallback) for f in dataclasses.fields(v)}
    if isinstance(v, dict):
        return {(str(k) if mode == "json" else k): _dump(x, mode, fallback) for k, x in v.items()}
    if isinstance(v, (list, tuple, set, frozenset)):
        return [_dump(x, mode, fallback) for x in v]
    if mode != "json":
        return v
    if fallback is not None:
        return fallback(v)
    raise PydanticSerializationError(f"Unable to serialize unknown type: {type(v)}")


def to_serializable(v, depth=0, max_depth=5):
    """crewai.utilities.serialization.to_serializable: JSON-safe, with a
    depth limit past which values become repr strings."""
    if v is None or isinstance(v, (bool, int, float, str)):
        return v
    if depth >= max_depth:
        return repr(v)
    if isinstance(v, enum.Enum):
        return v.value
    if isinstance(v, datetime.datetime):
        return v.isoformat()
    if isinstance(v, Model):
        return {k: to_serializable(getattr(v, k), depth + 1, max_depth) for k in v.model_fields}
    if isinstance(v, dict):
        return {str(k): to_serializable(x, depth + 1, max_depth) for k, x in v.items()}
    if isinstance(v, (list, tuple, set, frozenset)):
        return [to_serializable(x, depth + 1, max_depth) for x in v]
    return repr(v)
