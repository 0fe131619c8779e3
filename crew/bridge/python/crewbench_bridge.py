"""crewbench's bridge into a real CrewAI run (crewbench watch).

Loaded by crewbench's sitecustomize right after `crewai` is imported. It
connects back to crewbench over a loopback socket, sends every CrewAI event
as one JSON line, and registers execution hooks that ask crewbench what to
do only when a breakpoint matches. Standard library only; Python 3.10-3.13.

Wire protocol (one JSON value per line, both ways):
  bridge -> crewbench: hello, class, obj, event, pause, warning; an event of a
    class read field by field is a compact [seq, class id, source, values]
    line after that class's "class" line (its id and field names, once),
    with a fifth element [slot, kept] when its messages are only the part
    after the first kept messages of that history slot (_history); in the
    fields a class line lists as "utc" or "naive", a number is a datetime
    as integer microseconds since the epoch (_times); a run of such events
    may go as one line, the array of their arrays (_event_lines); an
    object field's summary that an "obj" line gave before goes as that
    line's number (_ref)
  crewbench -> bridge: config (the run's breakpoints, once, first), decision
Nothing here may raise into the user's run: every entry point catches
everything and fails open (the run proceeds as if crewbench were absent).

Cost: the emitting thread only stamps the sequence number and takes a
shallow copy of the event's field values (one itemgetter call on its
__dict__); a single writer thread summarises them, encodes JSON (values
only, with a C encoder built once, one call for a run of events) and
writes in batches.
With no breakpoints no hook is registered, so CrewAI's hook dispatch (and
its hook_dispatched events) cost nothing either.
"""
import atexit
import collections
import dataclasses
import datetime
import decimal
import enum
import itertools
import json
import math
import operator
import os
import pathlib
import queue
import socket
import sys
import threading
import time
import uuid

ENV_ADDR = "CREWBENCH_BRIDGE_ADDR"    # unix:/path or tcp:127.0.0.1:PORT
ENV_TOKEN = "CREWBENCH_BRIDGE_TOKEN"  # one-time token crewbench checks
PROTOCOL = 1
# How often a busy writer looks for captured events. Emitting threads only
# append to a deque (no lock, no wake-up per event: that would cost more
# than the event itself); the first event after a quiet spell wakes an idle
# writer, which then lingers this long so the burst goes out in few writes
# (and it does not compete for the GIL meanwhile). Pauses and warnings go
# out at once, and the end of the run cuts the lingering short (waiting it
# out was most of a short run's cost).
WRITE_POLL = 0.05
_WAKE = object()   # an event was captured while the writer slept
WRITE_BATCH = 256  # events per socket write, at most
# The writer encodes this many events at a time, then, unless it has
# fallen far behind, sleeps a moment: holding the GIL for a whole batch
# (~5 ms) stalled every agent thread that woke meanwhile (from an LLM
# call, a tool) until the batch was done. A short sleep hands the GIL over
# whether or not a thread is waiting for it (a zero sleep does not); a
# writer that falls behind, with a crew that never waits for anything,
# stops sleeping until it has caught up.
WRITE_CHUNK = 16
WRITE_YIELD = 0.00005
YIELD_BACKLOG = 2048
# Object-valued event fields: excluded from the dump and summarised (spec §2.4).
OBJ_FIELDS = frozenset({"agent", "task", "crew", "from_agent", "from_task", "tools", "callbacks",
                        "available_functions"})
FAILURE_TYPES = frozenset({"tool_usage_error", "tool_failure_detected", "mcp_tool_execution_failed"})

_SEQ = itertools.count(1)     # total order, stamped on the emitting thread
_PENDING = threading.local()  # a skip's supplied result, from before_tool to after_tool
_conn = None
_failed = False               # a tool failed since the last pause check


def _connect():
    addr = os.environ.get(ENV_ADDR, "")
    kind, _, where = addr.partition(":")
    if kind == "unix":
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.settimeout(10)
        s.connect(where)
    elif kind == "tcp":
        host, _, port = where.rpartition(":")
        s = socket.create_connection((host, int(port)), timeout=10)
    else:
        raise ValueError(f"{ENV_ADDR}={addr!r}: want unix:PATH or tcp:127.0.0.1:PORT")
    s.settimeout(None)
    return s


def _hello(**extra):
    return dict(op="hello", protocol=PROTOCOL, token=os.environ.get(ENV_TOKEN, ""), pid=os.getpid(),
                executable=sys.executable, python=sys.version.split()[0], argv=sys.argv, **extra)


def report_missing_crewai():
    """Called when `import crewai` found nothing: tell crewbench which
    interpreter it was, then let the ImportError happen as usual."""
    try:
        s = _connect()
        s.sendall((json.dumps(_hello(crewai_missing=True)) + "\n").encode())
        s.close()
    except Exception:
        pass


class _Conn:
    def __init__(self, sock):
        self.sock = sock
        self.out = queue.SimpleQueue()  # control lines: pause, warning; None ends the writer
        # Captured events, (seq, _Spec, source class name, field values),
        # appended by emitting threads; deque.append is atomic.
        self.events = collections.deque()
        self.idle = False  # the writer sleeps until woken: the next capture wakes it
        self.closed = threading.Event()
        self.lock = threading.Lock()
        self.waiters = {}  # pause id -> [threading.Event, decision]
        self.ids = itertools.count(1)
        self.bp = {}
        self.step = False
        self.rfile = sock.makefile("rb")
        self.writer = threading.Thread(target=self._write_loop, name="crewbench-bridge-writer", daemon=True)

    def start(self, config_timeout=10.0):
        self.writer.start()
        self.sock.settimeout(config_timeout)
        line = self.rfile.readline()  # the config line: breakpoints before any hook runs
        self.sock.settimeout(None)
        if not line:
            raise ConnectionError("crewbench closed the bridge connection")
        self._handle(json.loads(line))
        threading.Thread(target=self._read_loop, name="crewbench-bridge-reader", daemon=True).start()

    def send(self, obj):
        if not self.closed.is_set():
            self.out.put(obj)

    def _write_loop(self):
        out, events = self.out, self.events
        while True:
            msgs = []
            if not events:
                # Quiet: no CPU at all until a capture or a control line.
                # idle is set before the check, so a capture that this
                # check misses sees it and wakes us.
                self.idle = True
                if not events:
                    msgs.append(out.get())
                self.idle = False
            if not msgs or msgs[0] is _WAKE:
                # Busy, or just woken: let the burst gather for a moment,
                # unless a control line comes (a pause, or the end of the
                # run: waiting out the poll then would delay the exit).
                try:
                    msgs.append(out.get(timeout=WRITE_POLL))
                except queue.Empty:
                    pass
            try:
                while True:
                    msgs.append(out.get_nowait())
            except queue.Empty:
                pass
            msgs = [m for m in msgs if m is not _WAKE]
            stop = None in msgs
            # Control lines first: an event a pause's seq waits for was
            # appended before the pause was queued, so it is in events now.
            lines = [_line(m) for m in msgs if m is not None]
            # (a pause goes out with no sleep: its agent thread waits for it)
            yields = not lines and not stop
            try:
                n = len(events)  # only what is there now: emitters keep appending
                unsent = 0
                while lines or n:
                    take = min(n, WRITE_CHUNK)
                    n -= take
                    items = [events.popleft() for _ in range(take)]
                    try:
                        lines.append(_event_lines(items))
                    except Exception:  # a bug here must not end the writer (the run would wait for it at exit)
                        lines.append(_line({"op": "warning", "message": f"crewbench's bridge lost {take} events"}))
                    unsent += take
                    if not n or unsent >= WRITE_BATCH:
                        self.sock.sendall("".join(lines).encode("utf-8", "replace"))
                        lines, unsent = [], 0
                    if n and yields and len(events) < YIELD_BACKLOG and out.empty():
                        time.sleep(WRITE_YIELD)  # (not once a pause or the end of the run is queued)
            except OSError:
                self._close()
                return
            if stop:
                return

    def _read_loop(self):
        try:
            for line in self.rfile:
                try:
                    self._handle(json.loads(line))
                except ValueError:
                    continue
        except OSError:
            pass
        self._close()

    def _handle(self, msg):
        op = msg.get("op")
        if op == "config":
            self.bp = msg.get("breakpoints") or {}
            if any(self.bp.values()):
                _ensure_hooks()
        elif op == "decision":
            with self.lock:
                w = self.waiters.get(msg.get("id"))
            if w is not None:
                w[1] = msg
                w[0].set()

    def _close(self):
        # crewbench went away: every paused agent thread proceeds (fail open),
        # and events are no longer captured (nothing would drain them).
        _set_capturing(False)
        self.closed.set()
        self.events.clear()
        with self.lock:
            for w in self.waiters.values():
                w[0].set()

    def wants(self, kind, names, server, after_failure):
        bp = self.bp
        if self.closed.is_set():
            return False
        if self.step or bp.get("every") or (after_failure and bp.get("on_failure")):
            return True
        if kind == "llm_call":
            return bool(bp.get("llm_calls"))
        lowered = {n.lower() for n in names if n}
        if any(t.lower() in lowered for t in bp.get("tools") or ()):
            return True
        return bool(server) and any(s.lower() == server.lower() for s in bp.get("servers") or ())

    def ask(self, req):
        """Blocks this agent thread until crewbench decides; None means
        proceed (no answer: the socket closed or the optional timeout hit)."""
        rid = next(self.ids)
        w = [threading.Event(), None]
        with self.lock:
            self.waiters[rid] = w
        req.update(op="pause", id=rid, seq=next(_SEQ), thread=threading.current_thread().name)
        self.send(req)
        limit = float(os.environ.get("CREWBENCH_BRIDGE_PAUSE_TIMEOUT", "0") or 0)
        deadline = time.monotonic() + limit if limit > 0 else None
        while not w[0].wait(0.25):
            if self.closed.is_set() or (deadline is not None and time.monotonic() > deadline):
                break
        with self.lock:
            self.waiters.pop(rid, None)
        d = w[1]
        if d is not None:
            self.step = bool(d.get("step"))
        return d

    def finish(self, timeout=10.0):
        self.out.put(None)
        self.writer.join(timeout)
        try:
            self.sock.shutdown(socket.SHUT_WR)
        except OSError:
            pass


# One encoder for every line: json.dumps with options builds a new one per call.
_ENCODER = json.JSONEncoder(default=repr, ensure_ascii=False, separators=(",", ":"))


def _line(obj):
    return _ENCODER.encode(obj) + "\n"


def _warn(message, **extra):
    if _conn is not None:
        _conn.send(dict(op="warning", message=message, seq=next(_SEQ), **extra))


# Events -------------------------------------------------------------------

def _all_event_classes():
    try:
        from crewai.events.base_events import BaseEvent  # not exported by crewai.events
    except Exception:
        return []
    try:
        import importlib  # (here: only the fallback needs them)
        import pkgutil
        import crewai.events.types as types_pkg
        for m in pkgutil.walk_packages(types_pkg.__path__, types_pkg.__name__ + "."):
            try:
                importlib.import_module(m.name)
            except Exception:
                pass
    except Exception:
        pass
    seen, stack = [], [BaseEvent]
    while stack:
        for sub in stack.pop().__subclasses__():
            if sub not in seen:
                seen.append(sub)
                stack.append(sub)
    return seen


def _s(v):
    return None if v is None else str(v)


_NO_NAME = object()


def _summary(name, v):
    if v is None:
        return None
    if name in ("agent", "from_agent"):
        return {"role": getattr(v, "role", None), "id": _s(getattr(v, "id", None))}
    if name in ("task", "from_task"):
        return {"name": getattr(v, "name", None), "id": _s(getattr(v, "id", None)),
                "description": (_s(getattr(v, "description", None)) or "")[:500]}
    if name == "crew":
        return {"name": getattr(v, "name", None), "id": _s(getattr(v, "id", None))}
    if name == "tools":
        try:
            if v.__class__ is list and set(map(type, v)) == {dict}:
                # An LLM call's tools are the function schemas it sends:
                # data, kept whole as crewbench's own runs record them
                # (its diff and OTLP export read the names in them).
                return v
            # (not getattr(t, "name", repr(t)): that makes every tool's
            # repr, a whole pydantic model's, only to drop it)
            return [n if (n := getattr(t, "name", _NO_NAME)) is not _NO_NAME else repr(t) for t in v]
        except TypeError:
            return repr(v)
    if name == "available_functions":
        try:
            return sorted(str(k) for k in v)
        except TypeError:
            return repr(v)
    return repr(v)


class _Spec:
    """What the bridge needs of one event class, worked out once: its field
    names in dump order, which of them hold live objects (summarised, spec
    §2.4) and where, a C-level getter that copies all field values in one
    call, and the class's wire id (its field names go to crewbench once, so
    an event line carries only values)."""
    __slots__ = ("name", "names", "objects", "object_at", "get", "get_attrs", "id", "announced", "messages_at",
                 "key_at", "times", "plain_id")

    def __init__(self, cls):
        self.name = cls.__name__
        names = tuple(getattr(cls, "model_fields", None) or ())
        self.names = names
        self.objects = tuple(n for n in names if n in OBJ_FIELDS)
        self.object_at = tuple((i, n) for i, n in enumerate(names) if n in OBJ_FIELDS)
        # Classes whose pydantic serialisation is customised (field or model
        # serialisers, computed fields: CrewAI's flow errors) keep model_dump.
        dec = getattr(cls, "__pydantic_decorators__", None)
        custom = dec is not None and bool(getattr(dec, "field_serializers", None) or
                                          getattr(dec, "model_serializers", None) or
                                          getattr(dec, "computed_fields", None))
        # A pydantic model keeps its fields in __dict__: reading them there
        # costs two thirds of reading them as attributes.
        self.get = operator.itemgetter(*names) if len(names) > 1 and not custom else None
        self.get_attrs = operator.attrgetter(*names) if self.get is not None else None
        self.id = next(_SPEC_IDS)
        # An LLM call's messages repeat the conversation so far: they go as
        # what is new since the last call of the same task and agent.
        self.messages_at = names.index("messages") if "messages" in names else None
        self.key_at = tuple(names.index(n) for n in ("task_id", "agent_id") if n in names)
        # Set by the writer thread (the only one that reads them) when it
        # announces the class: the fields that go as microseconds (_times),
        # and the id of the same class without them (_plain).
        self.announced = False
        self.times = ()
        self.plain_id = None


_SPEC_IDS = itertools.count(1)
_SPECS = {}          # event class -> _Spec
_capturing = False   # cleared when crewbench goes away (or in a forked child)


def _spec(cls):
    spec = _SPECS.get(cls)
    if spec is None:
        spec = _SPECS[cls] = _Spec(cls)
    return spec


def _capture(source, event, seq):
    """Runs on the emitting thread: the least that keeps the event as it
    was at emit time. The event's own containers are not copied (CrewAI's
    pydantic validation already copied them from the caller's)."""
    spec = _SPECS.get(event.__class__) or _spec(event.__class__)
    values = event
    if spec.get is not None:
        try:
            values = spec.get(event.__dict__)
        except (AttributeError, KeyError):  # not kept in __dict__: as attributes
            try:
                values = spec.get_attrs(event)
            except AttributeError:  # a field never set (model_construct): dump the event itself
                values = event
    conn = _conn
    conn.events.append((seq, spec, source.__class__.__name__, values))
    if conn.idle:
        conn.idle = False
        conn.out.put(_WAKE)


def _utc(s):
    return s[:-6] + "Z" if s.endswith("+00:00") else s  # pydantic's JSON form


_DATETIME = datetime.datetime
_UTC = datetime.timezone.utc
_EPOCHS = {_UTC: datetime.datetime(1970, 1, 1, tzinfo=_UTC), None: datetime.datetime(1970, 1, 1)}
_MICROSECOND = datetime.timedelta(microseconds=1)
_MAX_MICROS = 2 ** 53  # what a JSON number (a float64 in Go) holds exactly: the years 1685-2255


def _times(values):
    """The datetime fields of a class, from its first event: (index, tzinfo,
    epoch) for each that holds a UTC or a naive datetime. Their values go
    as integer microseconds since the epoch, which crewbench formats as
    _json_default would (isoformat, +00:00 as Z): isoformat is the
    costliest part of a line (~2.3 µs, and the encoder's call back into
    Python ~1.5 µs more), the subtraction ~0.4 µs."""
    out = []
    for i, v in enumerate(values):
        if v.__class__ is _DATETIME and (v.tzinfo is _UTC or v.tzinfo is None):
            out.append((i, v.tzinfo, _EPOCHS[v.tzinfo]))
    return tuple(out)


def _json_default(v):
    """What pydantic's mode="json" (with fallback=repr) gives for the
    values the JSON encoder does not know."""
    if v.__class__ is _DATETIME:  # the common case (every timestamp), in one call
        s = v.isoformat()
        return s[:-6] + "Z" if s.endswith("+00:00") else s
    if isinstance(v, datetime.datetime):
        return _utc(v.isoformat())
    if isinstance(v, (datetime.date, datetime.time)):
        return v.isoformat()
    if isinstance(v, enum.Enum):
        return v.value
    if isinstance(v, uuid.UUID):
        return str(v)
    if isinstance(v, (set, frozenset)):
        return list(v)
    if isinstance(v, BaseException):
        return str(v)  # as CrewAI's own error field serialisers do
    if dataclasses.is_dataclass(v) and not isinstance(v, type):
        # AgentFinish/AgentAction (agent_logs_execution.formatted_answer):
        # pydantic dumps a dataclass as its fields, not its repr.
        return {f.name: getattr(v, f.name, None) for f in dataclasses.fields(v)}
    if isinstance(v, (pathlib.PurePath, decimal.Decimal)):
        return str(v)
    if isinstance(v, (bytes, bytearray)):
        try:
            return bytes(v).decode()
        except UnicodeDecodeError:
            return repr(v)
    if hasattr(type(v), "model_dump"):
        try:
            return v.model_dump(mode="json", fallback=repr)
        except Exception:
            pass
    return repr(v)


def _event_encoder():
    """One C encoder for every event line, built once: JSONEncoder.encode
    builds a new one per call, with a circular-reference check that the
    RecursionError fallback below makes unnecessary. The C encoder is
    private API (the same in 3.10-3.13): any surprise falls back to the
    public path."""
    try:
        from json import encoder
        c = encoder.c_make_encoder(None, _json_default, encoder.encode_basestring, None, ":", ",", False, False,
                                   False)

        def encode(obj):
            return "".join(c(obj, 0))
        if encode([None, "é", 1.5, {"a": (1,)}]) == '[null,"é",1.5,{"a":[1]}]':
            return encode
    except Exception:
        pass
    return json.JSONEncoder(default=_json_default, ensure_ascii=False, separators=(",", ":"),
                            allow_nan=False).encode


_ENCODE_EVENT = _event_encoder()


def _finite(v, depth=0):
    """The slow path for what the encoder refused: NaN/inf become null (as
    in pydantic), keys become strings, cycles end in a repr."""
    if depth > 32:
        return repr(v)
    if isinstance(v, float):
        return v if math.isfinite(v) else None
    if isinstance(v, dict):
        return {k if isinstance(k, str) else str(_json_default(k) if not isinstance(k, (int, float, bool)) else k):
                _finite(x, depth + 1) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [_finite(x, depth + 1) for x in v]
    if v is None or isinstance(v, (str, int, bool)):
        return v
    return _finite(_json_default(v), depth + 1)


def _model_dump(event, spec):
    objs = set(spec.objects)
    try:
        return event.model_dump(mode="json", exclude=objs, fallback=repr)
    except TypeError:  # pydantic < 2.11 has no fallback=
        return event.model_dump(mode="json", exclude=objs)


def _event_lines(items):
    """Runs on the writer thread: captured events as lines. An event read
    field by field goes as [seq, class id, source, values] after its
    class's field names (a "class" line, once), and a run of such events
    as one line, the array of them (one encoder call for all: a call's
    set-up is ~1.7 µs, as much as a small event's encoding); the others
    as an "event" object line."""
    out = []
    batch = []  # compact events not encoded yet: (msg, item, history, the messages in full)
    for item in items:
        spec, values = item[1], item[3]
        if values.__class__ is tuple:
            if not spec.announced:
                out.append(_announce(spec, values))
            try:
                batch.append(_compact(item, out))
                continue
            except Exception as e:  # live objects may change under us: keep the envelope
                line = _envelope_line(item, e)
        else:
            line = _object_line(item)
        if batch:
            _flush(batch, out)
            batch = []
        out.append(line)
    if batch:
        _flush(batch, out)
    return "".join(out)


def _announce(spec, values):
    """The class line of spec's first event, which also decides the fields
    that go as microseconds."""
    spec.times = _times(values)
    spec.announced = True
    return _line({"op": "class", "id": spec.id, "class": spec.name, "fields": spec.names, "objects": spec.objects,
                  "utc": [i for i, tz, _ in spec.times if tz is not None],
                  "naive": [i for i, tz, _ in spec.times if tz is None]})


def _compact(item, out):
    """An event read field by field as the list its line encodes: object
    fields summarised, datetimes as microseconds, messages as what
    crewbench does not have yet. Class lines it needs go to out."""
    seq, spec, source, values = item
    cid = spec.id
    if spec.object_at or spec.times:
        values = _summarised(spec, values, out)
        for i, tz, epoch in spec.times:
            v = values[i]
            if v.__class__ is _DATETIME and v.tzinfo is tz:
                us = (v - epoch) // _MICROSECOND
                if -_MAX_MICROS < us < _MAX_MICROS:
                    values[i] = us
            elif isinstance(v, (int, float)) and not isinstance(v, bool):
                # A number of its own would read as microseconds: this
                # event goes under the class without times.
                cid, values = _plain(spec, item[3], out)
                break
            # (anything else goes as it is, through _json_default)
    msg = [seq, cid, source, values]
    h = full = None
    if spec.messages_at is not None and values[spec.messages_at].__class__ is list:
        if values.__class__ is tuple:
            values = msg[3] = list(values)
        h, full = _history(spec, values, msg)
    return msg, item, h, full


def _plain(spec, values, out):
    """The class id and the values of spec's events that go with no field
    as microseconds (its class line to out, once)."""
    if spec.plain_id is None:
        spec.plain_id = next(_SPEC_IDS)
        out.append(_line({"op": "class", "id": spec.plain_id, "class": spec.name, "fields": spec.names,
                          "objects": spec.objects}))
    return spec.plain_id, _summarised(spec, values, out)


def _summarised(spec, values, out):
    """A list of values with the object fields summarised (spec §2.4), a
    summary crewbench already has as its number (_ref)."""
    values = list(values)
    for i, name in spec.object_at:
        v = values[i]
        if v is not None:
            values[i] = _ref(name, v, out)
    return values


# What an object's summary is made of, read without making it: the same
# values mean the same summary. An agent's role and a task's description
# change (CrewAI interpolates the kickoff inputs into them), so a summary is
# remembered by the object and checked against these on every use.
_FINGERPRINTS = {
    "agent": operator.attrgetter("role", "id"),
    "task": operator.attrgetter("name", "id", "description"),
    "crew": operator.attrgetter("name", "id"),
}
_KINDS = {"agent": "agent", "from_agent": "agent", "task": "task", "from_task": "task", "crew": "crew"}
_REFS = {}  # (kind, id(object)) -> [object, fingerprint, ref]; writer thread only
MAX_REFS = 4096


def _ref(name, v, out):
    """The summary of object field name's value v, or the number of the
    same summary sent before: an event's agent, task and crew are nearly
    always the previous event's, and their summaries were a quarter of
    the bridge's work per event. A summary goes to crewbench once, as an
    "obj" line (to out, before the line that refers to it), and its
    number stands for it in the events after; a changed object is sent
    again under its number. Anything else is summarised every time."""
    kind = _KINDS.get(name)
    if kind is None:
        return _summary(name, v)
    try:
        fp = _FINGERPRINTS[kind](v)
    except AttributeError:  # not an agent/task/crew after all: as it is
        return _summary(name, v)
    key = (kind, id(v))
    e = _REFS.get(key)  # (its object is v: the entry holds it, so no other object has its id)
    if e is not None:
        if e[1] == fp:
            return e[2]
        ref = e[2]
    else:
        if len(_REFS) >= MAX_REFS:
            _REFS.clear()  # numbers start over: crewbench's are overwritten as they are sent again
        ref = len(_REFS) + 1
    _REFS[key] = [v, fp, ref]
    out.append(_line({"op": "obj", "id": ref, "value": _summary(name, v)}))
    return ref


def _flush(batch, out):
    """Encodes compact events: all in one line, or when a value needs
    _finite (NaN, a key that is not a string, a cycle), one line each."""
    if len(batch) > 1:
        try:
            out.append(_ENCODE_EVENT([b[0] for b in batch]) + "\n")
            return
        except Exception:  # (a repr that raises, too) one by one, below
            pass
    lost = {}  # history slot -> its history, for slots whose last line was lost
    for msg, item, h, full in batch:
        if h is not None and h[0] in lost:  # crewbench lacks what this line's kept counts on: send it whole
            msg[3][item[1].messages_at] = full
            msg[4] = [h[0], 0]
        try:
            try:
                line = _ENCODE_EVENT(msg)
            except (TypeError, ValueError, RecursionError):
                msg[3] = _finite(msg[3])
                line = _ENCODE_EVENT(msg)
            out.append(line + "\n")
            if h is not None:
                lost.pop(h[0], None)
        except Exception as e:
            out.append(_envelope_line(item, e))
            if h is not None:
                lost[h[0]] = h
    for h in lost.values():
        h[1] = []  # the slot's next event sends its messages whole


def _object_line(item):
    """An event the bridge could not read field by field: its model_dump,
    in an "event" object line."""
    seq, spec, source, event = item
    try:
        data = _model_dump(event, spec)
        for name in spec.objects:
            s = _summary(name, getattr(event, name, None))
            if s is not None:
                data[name] = s
        msg = {"op": "event", "seq": seq, "class": spec.name, "source": source, "event": data}
        try:
            return _ENCODE_EVENT(msg) + "\n"
        except (TypeError, ValueError, RecursionError):
            msg["event"] = _finite(data)
            return _ENCODE_EVENT(msg) + "\n"
    except Exception as e:  # live objects may change under us: keep the envelope
        return _envelope_line(item, e)


def _envelope_line(item, err):
    seq, spec, source, values = item  # as captured (not with times as microseconds)
    if isinstance(values, tuple):
        data = dict(zip(spec.names, values))
    else:
        data = {n: getattr(values, n, None) for n in _ENVELOPE}
    return _line({"op": "event", "seq": seq, "class": spec.name, "source": source, "event": _envelope(data, err)})


_HISTORIES = {}  # (task_id, agent_id) -> [slot, messages crewbench has (once the lines written now are read)]; writer thread only
MAX_HISTORIES = 1024


def _history(spec, values, msg):
    """Replaces an LLM event's messages in values with the part crewbench
    does not have yet, and appends [slot, kept] to the line msg: crewbench
    keeps each slot's messages, and the event's are the first kept of them
    followed by these. The comparison is by value,
    with the identity shortcut for the dicts CrewAI passes on unchanged.
    Returns the slot's history and the messages in full (a copy: what
    crewbench will hold even if the list changes later), or Nones."""
    messages = values[spec.messages_at]
    key = tuple(values[i] for i in spec.key_at)
    h = _HISTORIES.get(key)
    if h is None:
        if len(_HISTORIES) >= MAX_HISTORIES:
            return None, None  # a run with this many task/agent pairs sends messages whole
        h = _HISTORIES[key] = [len(_HISTORIES) + 1, []]
    have = h[1]
    kept = len(have)
    if not (kept and kept <= len(messages) and messages[:kept] == have):
        kept = 0
    values[spec.messages_at] = messages[kept:]
    msg.append([h[0], kept])
    h[1] = full = list(messages)  # what crewbench has once it reads this line (_flush undoes it if it is lost)
    return h, full


_ENVELOPE = ("timestamp", "type", "task_id", "task_name", "agent_id", "agent_role", "event_id", "parent_event_id",
             "previous_event_id", "started_event_id", "emission_sequence")


def _envelope(data, err):
    out = {}
    for name in _ENVELOPE:
        v = data.get(name)
        if isinstance(v, datetime.datetime):
            v = _utc(v.isoformat())
        out[name] = v if v is None or isinstance(v, (str, int, float, bool)) else str(v)
    out["crewbench_serialization_error"] = f"{type(err).__name__}: {err}"
    return out


def _install_capture(bus):
    """Capture every event in the bus's _prepare_event, on the emitting
    thread, right after CrewAI has set its ids: emit() calls
    self._prepare_event first, for every event class, whether or not any
    handler listens, so no handler (and no pool task) is needed, and
    scoped_handlers() cannot hide the events."""
    orig = getattr(bus, "_prepare_event", None)
    if orig is None:
        return False
    _set_capturing(True)
    seq = _SEQ

    def stamped(source, event):
        global _failed
        orig(source, event)
        if not _capturing:
            return
        try:
            _capture(source, event, next(seq))
            if _hooks_on and event.type in FAILURE_TYPES:  # only a hook reads it
                _failed = True
        except Exception:
            pass
    bus._prepare_event = stamped  # an instance attribute: emit() calls self._prepare_event
    return True


def _on_event(source, event):  # exactly two parameters (a third would receive the runtime state)
    """The fallback when the bus has no _prepare_event: a handler per
    class, ordered by handling time."""
    global _failed
    try:
        if _capturing:
            _capture(source, event, next(_SEQ))
            if _hooks_on and event.type in FAILURE_TYPES:
                _failed = True
    except Exception:
        pass


def _set_capturing(on):
    global _capturing
    _capturing = on


def _watch_scoped_handlers(bus):
    orig = getattr(bus, "scoped_handlers", None)
    if orig is None:
        return
    import contextlib

    @contextlib.contextmanager
    def scoped_handlers(*a, **kw):
        _warn("the crew entered crewai_event_bus.scoped_handlers(): CrewAI hides every existing handler "
              "inside it, so crewbench sees no events until the block ends", detected="scoped_handlers")
        with orig(*a, **kw) as v:
            yield v
        _warn("scoped_handlers() ended: events are visible again", detected="scoped_handlers_end")
    bus.scoped_handlers = scoped_handlers


# Hooks --------------------------------------------------------------------

def _take_failure():
    global _failed
    f, _failed = _failed, False
    return f


def _who(ctx):
    agent, task = getattr(ctx, "agent", None), getattr(ctx, "task", None)
    return {"agent_role": getattr(agent, "role", None),
            "task_name": getattr(task, "name", None) or _s(getattr(task, "description", None))}


def _jsonable(v):
    try:
        return json.loads(json.dumps(v, default=repr))
    except Exception:
        return repr(v)


def _args_schema(tool):
    """The tool's argument model as JSON schema, for the pause panel; None
    when it has none. Only at a pause: never on the way of an event."""
    try:
        return _jsonable(tool.args_schema.model_json_schema())
    except Exception:
        return None


def _before_tool(ctx):
    try:
        name = getattr(ctx, "tool_name", "") or ""
        structured = getattr(ctx, "tool", None)
        # ctx.tool is the CrewStructuredTool CrewAI built from the agent's
        # tool; the MCP names live on the tool it wraps.
        tool = getattr(structured, "_original_tool", None) or structured
        original = getattr(tool, "original_tool_name", None) or ""
        server = getattr(tool, "server_name", None) or ""
        display = getattr(tool, "name", None) or ""
        failed = _take_failure()
        if not _conn.wants("tool_call", (name, original, display), server, failed):
            return None
        d = _conn.ask(dict(kind="tool_call", tool_name=name, original_tool_name=original, server_name=server,
                           display_name=display, tool_input=_jsonable(ctx.tool_input), after_failure=failed,
                           args_schema=_args_schema(structured), **_who(ctx)))
        action = (d or {}).get("action")
        if action == "edit_args" and isinstance(ctx.tool_input, dict):
            ctx.tool_input.clear()  # in place: reassigning ctx.tool_input has no effect
            ctx.tool_input.update(d.get("args") or {})
        elif action == "skip":
            _PENDING.result = str(d.get("result", ""))
            return False
        elif action == "abort":
            _PENDING.result = "crewbench: the run was aborted"
            return False
    except Exception:
        pass
    return None


def _after_tool(ctx):
    try:
        r = getattr(_PENDING, "result", None)
        _PENDING.result = None
        return r  # a str replaces the result the LLM sees; None keeps it
    except Exception:
        return None


def _before_llm(ctx):
    try:
        failed = _take_failure()
        if not _conn.wants("llm_call", (), "", failed):
            return None
        llm = getattr(ctx, "llm", None)
        d = _conn.ask(dict(kind="llm_call", messages=_jsonable(getattr(ctx, "messages", None)),
                           model=_s(getattr(llm, "model", None)), iterations=getattr(ctx, "iterations", 0),
                           after_failure=failed, **_who(ctx)))
        action = (d or {}).get("action")
        if action == "edit_messages" and isinstance(ctx.messages, list):
            ctx.messages[:] = d.get("messages") or []  # in place: the executor re-reads this list
        elif action == "abort":
            return False
    except Exception:
        pass
    return None


_HOOKS = (("register_before_tool_call_hook", _before_tool), ("register_after_tool_call_hook", _after_tool),
          ("register_before_llm_call_hook", _before_llm))
_hooks_module = None
_hooks_on = False
_hooks_lock = threading.Lock()


def _ensure_hooks():
    """The hooks are registered only when the run has breakpoints (the
    config line, read before crewai's import returns, so before any
    executor snapshots its LLM hooks): a run without breakpoints then pays
    nothing per tool or LLM call and emits no extra hook_dispatched.
    Breakpoints are fixed for a watched run, and stepping only follows a
    pause, so no hook is ever needed later."""
    global _hooks_on
    with _hooks_lock:
        if _hooks_on or _hooks_module is None:
            return
        _hooks_on = True
        for reg, fn in _HOOKS:
            getattr(_hooks_module, reg)(fn)


_CLEARING = threading.local()


def _watch_clears(hooks):
    """Wrap crewai.hooks.clear_*: the user's code clearing global hooks would
    silently remove crewbench's, so warn and register them again. Only the
    module attributes can be wrapped: a function imported before crewai
    finished importing is not seen."""
    for name in dir(hooks):
        if not name.startswith("clear_"):
            continue
        orig = getattr(hooks, name)
        if not callable(orig):
            continue

        def wrapper(*a, _orig=orig, _name=name, **kw):
            # clear_all_global_hooks calls the other clear_all_* through
            # this module's attributes, so through these wrappers: only the
            # outermost call warns, once, and registers again.
            depth = getattr(_CLEARING, "depth", 0)
            _CLEARING.depth = depth + 1
            try:
                result = _orig(*a, **kw)
            finally:
                _CLEARING.depth = depth
            if depth:
                return result
            try:
                _register_missing(hooks)
                _warn(f"the crew called crewai.hooks.{_name}(): crewbench registered its hooks again; LLM "
                      f"breakpoints only reach executors built after this call", detected=_name)
            except Exception:
                pass
            return result
        wrapper.__name__ = name
        setattr(hooks, name, wrapper)


def _register_missing(hooks):
    have = {
        "register_before_tool_call_hook": hooks.get_before_tool_call_hooks(),
        "register_after_tool_call_hook": hooks.get_after_tool_call_hooks(),
        "register_before_llm_call_hook": hooks.get_before_llm_call_hooks(),
    }
    for reg, fn in _HOOKS:
        if _hooks_on and fn not in have[reg]:
            getattr(hooks, reg)(fn)


def install(crewai_module=None):
    """Connect, register the listener and the hooks. Idempotent."""
    global _conn
    if _conn is not None:
        return
    version = getattr(crewai_module, "__version__", None) or getattr(sys.modules.get("crewai"), "__version__", "?")
    try:
        sock = _connect()
    except Exception as e:
        print(f"crewbench: cannot reach crewbench at {os.environ.get(ENV_ADDR)}: {e}; the run continues unwatched",
              file=sys.stderr)
        return
    notes = []
    try:
        from crewai.events import crewai_event_bus as bus
    except Exception as e:
        bus = None
        notes.append(f"crewai {version} has no crewai.events bus ({type(e).__name__}: {e}): no events")
    try:
        import crewai.hooks as hooks
        for reg, _ in _HOOKS:
            getattr(hooks, reg)
    except Exception as e:
        hooks = None
        notes.append(f"crewai {version} has no execution-hooks API ({type(e).__name__}: {e}): events only, "
                     f"no breakpoints")
    # Only the fallback (a handler per class) needs the event classes, and
    # finding them imports every module of crewai.events.types: a few ms
    # of every run's start, and imports the run would not otherwise do.
    classes = []
    if bus is not None and getattr(bus, "_prepare_event", None) is None:
        classes = _all_event_classes()
    global _hooks_module
    _hooks_module = hooks
    hello = _hello(crewai_version=version, hooks=hooks is not None, events=bus is not None)
    if classes:
        hello["event_classes"] = len(classes)
    sock.sendall(_line(hello).encode())
    conn = _Conn(sock)
    try:
        conn.start()
    except Exception as e:
        print(f"crewbench: the bridge handshake failed: {e}; the run continues unwatched", file=sys.stderr)
        sock.close()
        return
    _conn = conn
    for n in notes:
        _warn(n, detected="api")
    if bus is not None and not _install_capture(bus):
        _set_capturing(True)  # the handlers below capture instead
        for cls in classes:
            bus.register_handler(cls, _on_event)  # exact-class lookup: one registration per class
        _watch_scoped_handlers(bus)
        _warn("the event bus has no _prepare_event: events are ordered by handling time, not emit time")
    try:
        os.register_at_fork(after_in_child=lambda: _set_capturing(False))  # a forked child has no writer thread
    except Exception:
        pass
    if hooks is not None:
        _watch_clears(hooks)

    def finish():
        # Our atexit runs before the bus's shutdown (registered earlier):
        # let pending handlers finish, then drain the queue to crewbench.
        try:
            if bus is not None:
                bus.flush(timeout=10)
        except Exception:
            pass
        conn.finish()
    atexit.register(finish)
