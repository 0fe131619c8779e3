"""crewai.events.event_bus: the process-wide bus, with the §1.4 semantics
a bridge depends on: exact-class lookup, 2/3-parameter handlers, a lazily
started 10-thread "CrewAISyncHandler" pool (one submit per emit, so events
are handled unordered), an asyncio loop thread "CrewAIEventsLoop", inline
LLMStreamChunkEvent handlers, swallowed handler errors, flush, and
scoped_handlers hiding every handler."""
import asyncio
import atexit
import concurrent.futures
import contextlib
import contextvars
import functools
import inspect
import itertools
import threading

# Scope stems: a "<stem>_started" pushes, "<stem>_{completed,failed,error,finished}" pops.
_SCOPES = {"crew_kickoff", "task", "agent_execution", "flow", "llm_call", "tool_usage", "mcp_connection",
           "mcp_tool_execution", "memory_save", "memory_query", "memory_retrieval", "knowledge_query",
           "knowledge_search_query", "llm_guardrail", "agent_reasoning"}
_END_SUFFIXES = ("completed", "failed", "error", "finished")

_stack = contextvars.ContextVar("crewai_event_scope_stack", default=())
_last_event = contextvars.ContextVar("crewai_last_event_id", default=None)
_sequence = contextvars.ContextVar("crewai_emission_sequence", default=None)


def reset_emission_counter():
    """Called at every top-level kickoff (crews/utils.py:271-273)."""
    _sequence.set(itertools.count(1))


@functools.lru_cache(maxsize=256)
def _params_cached(h):
    return len(inspect.signature(h).parameters)


def _params(h):
    """Cached per handler, as in CrewAI (events/utils/handlers.py), so a
    handler call costs here what it costs there."""
    try:
        return _params_cached(h)
    except TypeError:  # unhashable (a partial): uncached, like CrewAI
        try:
            return len(inspect.signature(h).parameters)
        except (TypeError, ValueError):
            return 2
    except ValueError:
        return 2


def _is_async(h):
    if isinstance(h, functools.partial):
        return _is_async(h.func)
    return inspect.iscoroutinefunction(h) or inspect.iscoroutinefunction(getattr(h, "__call__", None))


class Depends:
    def __init__(self, handler):
        self.handler = handler


class CircularDependencyError(Exception):
    pass


class CrewAIEventsBus:
    _instance = None
    _instance_lock = threading.Lock()

    def __new__(cls):
        with cls._instance_lock:
            if cls._instance is None:
                inst = super().__new__(cls)
                inst._init()
                cls._instance = inst
        return cls._instance

    def _init(self):
        self._lock = threading.RLock()
        self._sync = {}    # exact class -> frozenset of handlers
        self._async = {}
        self._deps = {}    # handler -> [Depends]
        self._pool = None
        self._loop = None
        self._pending = set()
        self._shutting_down = False
        self.runtime_state = None

    # Registration ---------------------------------------------------------
    def on(self, event_type, depends_on=None):
        def decorator(handler):
            self._register(event_type, handler, depends_on)
            return handler
        return decorator

    def register_handler(self, event_type, handler):
        self._register(event_type, handler, None)

    def _register(self, event_type, handler, depends_on):
        with self._lock:
            table = self._async if _is_async(handler) else self._sync
            table[event_type] = table.get(event_type, frozenset()) | {handler}
            if depends_on is not None:
                self._deps[handler] = depends_on if isinstance(depends_on, list) else [depends_on]

    def off(self, event_type, handler):
        with self._lock:
            for table in (self._sync, self._async):
                if handler in table.get(event_type, ()):
                    table[event_type] = table[event_type] - {handler}

    def validate_dependencies(self):
        with self._lock:
            deps = {h: [d.handler for d in ds] for h, ds in self._deps.items()}
        state = {}

        def visit(h):
            if state.get(h) == 1:
                raise CircularDependencyError(f"circular dependency involving {getattr(h, '__name__', h)}")
            if state.get(h) == 2:
                return
            state[h] = 1
            for d in deps.get(h, ()):
                visit(d)
            state[h] = 2
        for h in deps:
            visit(h)

    # Emission -------------------------------------------------------------
    def _prepare_event(self, source, event):
        stack = _stack.get()
        t = event.type or ""
        stem, _, suffix = t.rpartition("_")
        if stack:
            event.parent_event_id = event.parent_event_id or stack[-1][1]
        event.previous_event_id = _last_event.get()
        if suffix == "started" and stem in _SCOPES:
            _stack.set(stack + ((stem, event.event_id),))
        elif suffix in _END_SUFFIXES and stem in _SCOPES:
            if stack and stack[-1][0] == stem:
                event.started_event_id = stack[-1][1]
                rest = stack[:-1]
                _stack.set(rest)
                event.parent_event_id = rest[-1][1] if rest else None
            else:
                print(f"[CrewAIEventsBus] Warning: {t} without a matching {stem}_started")
        _last_event.set(event.event_id)
        counter = _sequence.get()
        if counter is None:
            counter = itertools.count(1)
            _sequence.set(counter)
        event.emission_sequence = next(counter)

    def _start(self):
        with self._lock:
            if self._pool is None:
                self._pool = concurrent.futures.ThreadPoolExecutor(max_workers=10, thread_name_prefix="CrewAISyncHandler")
                self._loop = asyncio.new_event_loop()
                threading.Thread(target=self._loop.run_forever, name="CrewAIEventsLoop", daemon=True).start()

    def _call(self, handler, source, event):
        try:
            if _params(handler) >= 3:
                handler(source, event, self.runtime_state)
            else:
                handler(source, event)
        except Exception as e:  # noqa: BLE001 - handler errors never reach the emitter
            print(f"[CrewAIEventsBus] Sync handler error in {handler.__name__}: {e}")

    def _run_sync(self, handlers, source, event):
        for h in self._ordered(handlers):
            self._call(h, source, event)

    def _ordered(self, handlers):
        if not any(h in self._deps for h in handlers):
            return list(handlers)  # frozenset order, not registration order
        done, out, todo = set(), [], list(handlers)
        while todo:
            level = [h for h in todo if all(d.handler in done or d.handler not in handlers for d in self._deps.get(h, ()))]
            if not level:
                raise CircularDependencyError("circular handler dependencies")
            out += level
            done |= set(level)
            todo = [h for h in todo if h not in done]
        return out

    async def _run_async(self, handlers, source, event):
        async def one(h):
            try:
                await h(source, event)
            except Exception as e:  # noqa: BLE001
                print(f"[CrewAIEventsBus] Async handler error in {getattr(h, '__name__', h)}: {e}")
        await asyncio.gather(*(one(h) for h in handlers))

    def emit(self, source, event):
        self._prepare_event(source, event)  # first, as in CrewAI: even during shutdown
        if self._shutting_down:
            print("[CrewAIEventsBus] Warning: Attempted to emit event during shutdown. Ignoring.")
            return None
        with self._lock:
            sync = self._sync.get(type(event), frozenset())
            asyn = self._async.get(type(event), frozenset())
        if not sync and not asyn:
            return None
        self._start()
        from crewai.events.types.llm_events import LLMStreamChunkEvent
        fut = None
        if sync:
            if type(event) is LLMStreamChunkEvent:
                self._run_sync(sync, source, event)
            else:
                ctx = contextvars.copy_context()
                fut = self._pool.submit(ctx.run, self._run_sync, sync, source, event)
                self._track(fut)
        if asyn:
            afut = asyncio.run_coroutine_threadsafe(self._run_async(asyn, source, event), self._loop)
            self._track(afut)
            return afut  # mixed: the sync future is not returned
        return fut

    def _track(self, fut):
        with self._lock:
            self._pending.add(fut)
        fut.add_done_callback(self._untrack)

    def _untrack(self, fut):
        with self._lock:
            self._pending.discard(fut)

    async def aemit(self, source, event):
        self._prepare_event(source, event)
        asyn = self._async.get(type(event), frozenset())
        if asyn:
            await self._run_async(asyn, source, event)

    def replay(self, source, event):
        sync = self._sync.get(type(event), frozenset())
        if sync:
            self._start()
            return self._pool.submit(self._run_sync, sync, source, event)
        return None

    def flush(self, timeout=30.0):
        with self._lock:
            pending = list(self._pending)
        if not pending:
            return True
        done, not_done = concurrent.futures.wait(pending, timeout=timeout)
        for f in done:
            if f.exception() is not None:
                print(f"[CrewAIEventsBus] Handler exception during flush: {f.exception()}")
        return not not_done

    @contextlib.contextmanager
    def scoped_handlers(self):
        with self._lock:
            saved = (dict(self._sync), dict(self._async), dict(self._deps))
            self._sync, self._async, self._deps = {}, {}, {}
        try:
            yield
        finally:
            with self._lock:
                self._sync, self._async, self._deps = saved

    def shutdown(self, wait=True):
        if self._shutting_down:
            return
        self.flush()
        self._shutting_down = True
        with self._lock:
            if self._loop is not None:
                self._loop.call_soon_threadsafe(self._loop.stop)
            if self._pool is not None:
                self._pool.shutdown(wait=wait)
            self._sync, self._async = {}, {}


crewai_event_bus = CrewAIEventsBus()
atexit.register(crewai_event_bus.shutdown)
