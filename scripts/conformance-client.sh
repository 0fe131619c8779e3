#!/usr/bin/env bash
# The client command scripts/conformance.sh gives the conformance suite:
#   conformance-client.sh CREWBENCH SERVER_URL
# It turns the scenario's MCP_CONFORMANCE_CONTEXT (pre-registered client
# credentials, a private key) into crewbench's CREWBENCH_OAUTH_* variables,
# names the suite's test client metadata document URL, and runs
#   crewbench smoke --no-record --oauth=headless --elicitation=defaults SERVER_URL
set -euo pipefail
crewbench=$1 url=$2
if [ -n "${MCP_CONFORMANCE_CONTEXT:-}" ]; then
  eval "$("$CONFORMANCE_NODE" -e '
    const c = JSON.parse(process.env.MCP_CONFORMANCE_CONTEXT);
    const q = (s) => "'"'"'" + String(s).replace(/'"'"'/g, "'"'"'\\'"'"''"'"'") + "'"'"'";
    const out = [];
    if (c.client_id) out.push("export CREWBENCH_OAUTH_CLIENT_ID=" + q(c.client_id));
    if (c.client_secret) out.push("export CREWBENCH_OAUTH_CLIENT_SECRET=" + q(c.client_secret));
    if (c.private_key_pem) out.push("export CREWBENCH_OAUTH_PRIVATE_KEY=" + q(c.private_key_pem));
    console.log(out.join("\n"));
  ')"
fi
# The URL the suite expects a client metadata document client to use.
export CREWBENCH_OAUTH_CLIENT_METADATA_URL=https://conformance-test.local/client-metadata.json
# --elicitation=defaults: a headless client answers elicitation with the
# form's defaults (SEP-1034), as a user smoke-testing such a server would ask.
exec "$crewbench" smoke --no-record --oauth=headless --elicitation=defaults "$url"
