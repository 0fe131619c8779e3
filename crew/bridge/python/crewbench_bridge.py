"""crewbench's bridge into a real CrewAI run (crewbench watch).

Loaded by crewbench's sitecustomize right after `crewai` is imported. It
connects back to crewbench over a loopback socket, sends every CrewAI event
as one JSON line, and registers execution hooks that ask crewbench what to
do only when a breakpoint matches. Standard library only; Python 3.10-3.13.

Wire protocol (one JSON object per line, both ways):
  bridge -> crewbench: hello, event, pause, warning
  crewbench -> bridge: config (breakpoints, first), breakpoints, decision
Nothing here may raise into the user's run: every entry point catches
everything and fails open (the run proceeds as if crewbench were absent).
"""
import atexit
import importlib
import itertools
import json
import os
import pkgutil
import queue
import socket
import sys
import threading
import time

ENV_ADDR = "CREWBENCH_BRIDGE_ADDR"    # unix:/path or tcp:127.0.0.1:PORT
ENV_TOKEN = "CREWBENCH_BRIDGE_TOKEN"  # one-time token crewbench checks
PROTOCOL = 1
WRITE_LINGER = 0.005  # seconds the writer waits for more lines before a write
# Object-valued event fields: excluded from the dump and summarised (spec §2.4).
OBJ_FIELDS = frozenset({"agent", "task", "crew", "from_agent", "from_task", "tools", "callbacks",
                        "available_functions"})
FAILURE_TYPES = frozenset({"tool_usage_error", "tool_failure_detected", "mcp_tool_execution_failed"})

_SEQ = itertools.count(1)     # total order, stamped on the emitting thread
_ORDER = {}                   # event_id -> seq, from _prepare_event to the handler
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
        self.out = queue.SimpleQueue()
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
        while True:
            batch = [self.out.get()]
            if batch[0] is not None and self.out.empty():
                # Linger a moment so a burst goes out as one write: one
                # wake-up and one syscall per batch, not per event.
                time.sleep(WRITE_LINGER)
            try:
                while len(batch) < 512 and batch[-1] is not None:
                    batch.append(self.out.get_nowait())
            except queue.Empty:
                pass
            stop = batch[-1] is None
            data = "".join(_line(o) for o in batch if o is not None)
            try:
                if data:
                    self.sock.sendall(data.encode("utf-8", "replace"))
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
        if op in ("config", "breakpoints"):
            self.bp = msg.get("breakpoints") or {}
            if any(self.bp.values()):
                _ensure_tool_hooks()
        elif op == "decision":
            with self.lock:
                w = self.waiters.get(msg.get("id"))
            if w is not None:
                w[1] = msg
                w[0].set()

    def _close(self):
        # crewbench went away: every paused agent thread proceeds (fail open).
        self.closed.set()
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
            if self.step:
                _ensure_tool_hooks()
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

def _all_event_classes(base):
    try:
        import crewai.events.types as types_pkg
        for m in pkgutil.walk_packages(types_pkg.__path__, types_pkg.__name__ + "."):
            try:
                importlib.import_module(m.name)
            except Exception:
                pass
    except Exception:
        pass
    seen, stack = [], [base]
    while stack:
        for sub in stack.pop().__subclasses__():
            if sub not in seen:
                seen.append(sub)
                stack.append(sub)
    return seen


def _s(v):
    return None if v is None else str(v)


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
            return [getattr(t, "name", repr(t)) for t in v]
        except TypeError:
            return repr(v)
    if name == "available_functions":
        try:
            return sorted(str(k) for k in v)
        except TypeError:
            return repr(v)
    return repr(v)


_EXCLUDE = {}  # event class -> the object fields it declares


def _dump(event):
    cls = type(event)
    objs = _EXCLUDE.get(cls)
    if objs is None:
        objs = _EXCLUDE[cls] = OBJ_FIELDS & set(getattr(cls, "model_fields", {}))
    try:
        data = event.model_dump(mode="json", exclude=objs, fallback=repr)
    except TypeError:  # pydantic < 2.11 has no fallback=
        data = event.model_dump(mode="json", exclude=objs)
    for name in objs:
        s = _summary(name, getattr(event, name, None))
        if s is not None:
            data[name] = s
    return data


def _envelope(event, err):
    data = {}
    for name in ("timestamp", "type", "task_id", "task_name", "agent_id", "agent_role", "event_id",
                 "parent_event_id", "previous_event_id", "started_event_id", "emission_sequence"):
        v = getattr(event, name, None)
        data[name] = v if v is None or isinstance(v, (str, int, float, bool)) else str(v)
    data["crewbench_serialization_error"] = f"{type(err).__name__}: {err}"
    return data


def _on_event(source, event):  # exactly two parameters (a third would receive the runtime state)
    try:
        seq = _ORDER.pop(getattr(event, "event_id", None), None) or next(_SEQ)
        try:
            data = _dump(event)
        except Exception as e:  # live objects may change under us: keep the envelope
            data = _envelope(event, e)
        _conn.send({"op": "event", "seq": seq, "class": type(event).__name__,
                    "source": type(source).__name__, "event": data})
    except Exception:
        pass


def _install_stamp(bus):
    orig = getattr(bus, "_prepare_event", None)
    if orig is None:
        return False

    def stamped(source, event):
        global _failed
        orig(source, event)
        try:
            _ORDER[event.event_id] = next(_SEQ)
            if getattr(event, "type", None) in FAILURE_TYPES:
                _failed = True
        except Exception:
            pass
    bus._prepare_event = stamped  # an instance attribute: emit() calls self._prepare_event
    return True


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


def _before_tool(ctx):
    try:
        name = getattr(ctx, "tool_name", "") or ""
        tool = getattr(ctx, "tool", None)
        original = getattr(tool, "original_tool_name", None) or ""
        server = getattr(tool, "server_name", None) or ""
        display = getattr(tool, "name", None) or ""
        failed = _take_failure()
        if not _conn.wants("tool_call", (name, original, display), server, failed):
            return None
        d = _conn.ask(dict(kind="tool_call", tool_name=name, original_tool_name=original, server_name=server,
                           display_name=display, tool_input=_jsonable(ctx.tool_input), after_failure=failed,
                           **_who(ctx)))
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
_TOOL_HOOKS = _HOOKS[:2]
_hooks_module = None
_tool_hooks_on = False
_tool_hooks_lock = threading.Lock()


def _ensure_tool_hooks():
    """Tool hooks are read from the global list on every call, so they are
    registered only once a breakpoint exists: a run without breakpoints
    then pays nothing per tool call and emits no extra hook_dispatched.
    The LLM hook is registered at install: executors snapshot LLM hooks
    when they are built, so a later one would never fire."""
    global _tool_hooks_on
    with _tool_hooks_lock:
        if _tool_hooks_on or _hooks_module is None:
            return
        _tool_hooks_on = True
        for reg, fn in _TOOL_HOOKS:
            getattr(_hooks_module, reg)(fn)


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
            result = _orig(*a, **kw)
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
        if (reg == "register_before_llm_call_hook" or _tool_hooks_on) and fn not in have[reg]:
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
        from crewai.events import BaseEvent, crewai_event_bus as bus
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
    classes = _all_event_classes(BaseEvent) if bus is not None else []
    global _hooks_module
    _hooks_module = hooks
    if hooks is not None:
        hooks.register_before_llm_call_hook(_before_llm)  # before the config: kickoff may follow at once
    sock.sendall(_line(_hello(crewai_version=version, hooks=hooks is not None, events=bus is not None,
                              event_classes=len(classes))).encode())
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
    if bus is not None:
        stamped = _install_stamp(bus)
        for cls in classes:
            bus.register_handler(cls, _on_event)  # exact-class lookup: one registration per class
        _watch_scoped_handlers(bus)
        if not stamped:
            _warn("the event bus has no _prepare_event: events are ordered by handling time, not emit time")
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
