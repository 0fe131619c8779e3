#!/usr/bin/env bash
# The test command from README.md. Runs every test under the race detector.
# In CI (CREWBENCH_CI=1) the interop tests against the npm reference MCP
# servers and the tmux end-to-end script are mandatory: they fail, not skip,
# when they cannot run.
set -euo pipefail
cd "$(dirname "$0")/.."

go test -race -count=1 -timeout 20m ./...
