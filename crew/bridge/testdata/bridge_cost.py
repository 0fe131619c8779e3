"""The CPU the bridge's own code takes per event, measured in-process on
the stub bench's real events (run by TestWatchCost: `python3
bridge_cost.py N` with the bridge, the stub and the project on PYTHONPATH).

A whole watched run's CPU minus a plain run's is what counts, but on a
shared machine it moves by tens of µs per event; this measures the same
work without the processes around it: the emitting thread's capture, and
the writer thread's summarising and encoding, by thread CPU time, best of
several rounds. Prints one line: "capture X line Y bytes Z" (µs per event,
µs per event, bytes per event)."""
import collections
import contextlib
import io
import sys
import time

import crewai  # noqa: F401  (the stub)
from crewai.events import crewai_event_bus as bus

import crewbench_bridge as bridge
from stubcrew.main import main

captured = []
prepare = bus._prepare_event


def keep(source, event):
    prepare(source, event)
    captured.append((source, event))


bus._prepare_event = keep
with contextlib.redirect_stdout(io.StringIO()):
    main(["bench", sys.argv[1] if len(sys.argv) > 1 else "10000"])


class Conn:
    """What bridge._capture needs of a connection."""
    idle = False

    def __init__(self):
        self.events = collections.deque()


def capture():
    bridge._conn = Conn()
    for seq, (source, event) in enumerate(captured, 1):
        bridge._capture(source, event, seq)
    return list(bridge._conn.events)


def lines(items):
    bridge._HISTORIES.clear()
    bridge._REFS.clear()
    step = bridge.WRITE_CHUNK  # as the writer takes them
    return [bridge._event_lines(items[i:i + step]) for i in range(0, len(items), step)]


best_capture = best_lines = float("inf")
for _ in range(5):
    t0 = time.thread_time()
    items = capture()
    t1 = time.thread_time()
    out = lines(items)
    t2 = time.thread_time()
    best_capture, best_lines = min(best_capture, t1 - t0), min(best_lines, t2 - t1)
n = len(captured)
print(f"capture {best_capture / n * 1e6:.1f} line {best_lines / n * 1e6:.1f} bytes {sum(map(len, out)) / n:.0f}")
