"""crewbench watch: load the CrewAI bridge as soon as `crewai` is imported.

crewbench puts this directory first on PYTHONPATH. Processes that never
import crewai pay one meta-path lookup per top-level import and nothing
else. Any sitecustomize the environment already had runs first, unchanged.
"""
import importlib.machinery
import importlib.util
import os
import sys

_HERE = os.path.dirname(os.path.abspath(__file__))


def _chain_existing_sitecustomize():
    path = [p for p in sys.path if os.path.abspath(p or os.curdir) != _HERE]
    spec = importlib.machinery.PathFinder.find_spec("sitecustomize", path)
    if spec is None or spec.loader is None:
        return
    module = importlib.util.module_from_spec(spec)
    try:
        spec.loader.exec_module(module)
    except Exception as e:  # the user's own sitecustomize failing must look the same as without crewbench
        print(f"Error in sitecustomize; set PYTHONVERBOSE for traceback:\n{type(e).__name__}: {e}", file=sys.stderr)


class _Loader:
    """Wraps crewai's loader: after crewai/__init__.py has run, install the bridge."""

    def __init__(self, inner):
        self._inner = inner

    def __getattr__(self, name):
        return getattr(self._inner, name)

    def create_module(self, spec):
        return self._inner.create_module(spec)

    def exec_module(self, module):
        self._inner.exec_module(module)
        try:
            import crewbench_bridge
            crewbench_bridge.install(module)
        except Exception as e:  # never break the user's import
            print(f"crewbench: the bridge could not start: {type(e).__name__}: {e}", file=sys.stderr)


class _Finder:
    def find_spec(self, name, path=None, target=None):
        if name != "crewai":
            return None
        sys.meta_path[:] = [f for f in sys.meta_path if f is not self]
        spec = None
        for finder in sys.meta_path:
            find = getattr(finder, "find_spec", None)
            if find is not None:
                spec = find(name, path, target)
                if spec is not None:
                    break
        if spec is None or spec.loader is None:
            try:
                import crewbench_bridge
                crewbench_bridge.report_missing_crewai()
            except Exception:
                pass
            return None
        spec.loader = _Loader(spec.loader)
        return spec


_chain_existing_sitecustomize()
if os.environ.get("CREWBENCH_BRIDGE_ADDR"):
    sys.meta_path.insert(0, _Finder())
