#!/usr/bin/env python3
"""The smallest honest MCP client, the baseline of scripts/bench-tools.sh.

    raw-mcp-client.py COMMAND [ARG...]

Spawns the stdio server, sends initialize, notifications/initialized and
tools/list (one page), prints the tools/list result as JSON, closes its
standard output and only then stops the server (close stdin, then SIGTERM
after a grace period). Python standard library only; no retries, no
pagination, no validation: a lower bound for what a client must do.
"""

import json
import os
import subprocess
import sys

PROTOCOL = "2025-11-25"


def request(proc, msg_id, method, params):
    line = {"jsonrpc": "2.0", "id": msg_id, "method": method, "params": params}
    proc.stdin.write((json.dumps(line) + "\n").encode())
    proc.stdin.flush()
    while True:
        raw = proc.stdout.readline()
        if not raw:
            sys.exit("raw client: the server closed its output before answering %s" % method)
        msg = json.loads(raw)
        # Skip notifications and server requests; wait for our answer.
        if msg.get("id") == msg_id and ("result" in msg or "error" in msg):
            if "error" in msg:
                sys.exit("raw client: %s failed: %s" % (method, msg["error"]))
            return msg["result"]


def main():
    if len(sys.argv) < 2:
        sys.exit("usage: raw-mcp-client.py COMMAND [ARG...]")
    proc = subprocess.Popen(sys.argv[1:], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    try:
        request(proc, 1, "initialize", {
            "protocolVersion": PROTOCOL,
            "capabilities": {},
            "clientInfo": {"name": "raw-mcp-client", "version": "1"},
        })
        proc.stdin.write(b'{"jsonrpc":"2.0","method":"notifications/initialized"}\n')
        proc.stdin.flush()
        result = request(proc, 2, "tools/list", {})
        sys.stdout.write(json.dumps(result, indent=2) + "\n")
        sys.stdout.flush()
        # The output is complete: let the reader see EOF before the reaping.
        os.close(sys.stdout.fileno())
    finally:
        proc.stdin.close()
        try:
            proc.wait(timeout=2)
        except subprocess.TimeoutExpired:
            proc.terminate()
            try:
                proc.wait(timeout=2)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()


if __name__ == "__main__":
    main()
