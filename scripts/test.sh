#!/usr/bin/env bash
# The test command from README.md. Runs every test under the race detector.
# In CI (CREWBENCH_CI=1) the interop tests against the npm reference MCP
# servers and the tmux end-to-end script are mandatory: they fail, not skip,
# when they cannot run.
set -euo pipefail
cd "$(dirname "$0")/.."

# Reference MCP servers for the interop tests (mcpconn, crewbench smoke),
# installed from npm into a git-ignored cache. Pinned; reinstalled only when
# a version is missing. Outside CI a failed install only skips those tests.
NPM_SERVERS=(
  "@modelcontextprotocol/server-everything@2026.8.31"
  "@modelcontextprotocol/server-filesystem@2026.8.31"
)
export CREWBENCH_NPM_DIR="$PWD/.cache/npm"
npm_ok() {
  local spec name version
  for spec in "${NPM_SERVERS[@]}"; do
    name="${spec%@*}" version="${spec##*@}"
    grep -q "\"version\": \"$version\"" "$CREWBENCH_NPM_DIR/node_modules/$name/package.json" 2>/dev/null || return 1
  done
}
if ! npm_ok; then
  if command -v npm >/dev/null 2>&1; then
    mkdir -p "$CREWBENCH_NPM_DIR"
    echo "installing MCP reference servers into $CREWBENCH_NPM_DIR"
    if ! (cd "$CREWBENCH_NPM_DIR" && timeout 600 npm install --no-audit --no-fund --prefix . "${NPM_SERVERS[@]}" >npm-install.log 2>&1); then
      echo "npm install of the MCP reference servers failed (see $CREWBENCH_NPM_DIR/npm-install.log)" >&2
      if [ "${CREWBENCH_CI:-}" = "1" ]; then exit 1; fi
    fi
  elif [ "${CREWBENCH_CI:-}" = "1" ]; then
    echo "npm is required in CI for the MCP interop tests" >&2
    exit 1
  fi
fi

go test -race -count=1 -timeout 20m ./...
# Memory bounds are measured without the race detector (it changes what
# allocates, and the export test takes minutes under it on a busy machine),
# so those tests run once more without it.
go test -count=1 -timeout 5m -run 'MemoryPerInputByte|FileExportMemoryStreams' ./crew/project/ ./session/

# --- workbench end-to-end (scripts/e2e-tui.sh, owned with ui/) ---------------
# Builds the real binary and drives `crewbench demo` in tmux as a new user
# would. Mandatory in CI (a missing tmux fails the run); outside CI run it by
# hand: bash scripts/e2e-tui.sh
if [ "${CREWBENCH_CI:-}" = "1" ]; then
  if ! command -v tmux >/dev/null 2>&1; then
    echo "tmux is required in CI for scripts/e2e-tui.sh" >&2
    exit 1
  fi
  bash scripts/e2e-tui.sh
fi
# --- end workbench end-to-end -------------------------------------------------
