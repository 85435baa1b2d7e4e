#!/usr/bin/env python3
"""The start-up time MCP servers add, measured in one run.

    npm ci --prefix tests/mcp-servers
    python3 benches/mcp_startup.py [--binary target/release/agent] [--runs 10]

Each session runs against a mock model on 127.0.0.1 that records when the
first request arrives and answers "done". Figures, medians over the runs,
with no server configured and with three (server-everything,
server-filesystem and server-memory from tests/mcp-servers), the two kinds
interleaved so that the machine's load falls on both alike:
- spawn to the `session-start` line (which lists the servers' tools, so it
  waits for them);
- spawn to the first model request (the servers' tools in it);
and, for scale, how long the three take to answer `tools/list` when this
script spawns them at once and speaks to them directly (what the agent
cannot do faster), and each alone.

Only the standard library; every server is on 127.0.0.1.
"""

import argparse
import http.server
import json
import os
import statistics
import subprocess
import tempfile
import threading
from concurrent.futures import ThreadPoolExecutor
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SERVERS = os.path.join(ROOT, "tests", "mcp-servers", "node_modules", ".bin")


class FirstRequest:
    """A mock OpenAI-format model: answers "done", notes when the first
    request of the current session arrived."""

    def __init__(self):
        self.arrived = None
        model = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_POST(self):
                if model.arrived is None:
                    model.arrived = time.perf_counter()
                body = json.loads(self.rfile.read(int(self.headers["content-length"])))
                model.tools = [tool["function"]["name"] for tool in body.get("tools", [])]
                chunks = [
                    {"choices": [{"index": 0, "delta": {"content": "done"}}]},
                    {"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]},
                    {"choices": [], "usage": {"prompt_tokens": 10, "completion_tokens": 1}},
                ]
                stream = b"".join(b"data: " + json.dumps(c).encode() + b"\n\n" for c in chunks)
                stream += b"data: [DONE]\n\n"
                self.send_response(200)
                self.send_header("content-type", "text/event-stream")
                self.send_header("content-length", str(len(stream)))
                self.send_header("connection", "close")
                self.end_headers()
                self.wfile.write(stream)

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/v1"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()


def servers_toml(folder, work):
    def table(name, args=(), env=None):
        lines = [f"[mcp_servers.{name}]",
                 f"command = {json.dumps(os.path.join(SERVERS, 'mcp-server-' + name))}",
                 f"args = {json.dumps(list(args))}"]
        if env:
            lines.append("env = { " + ", ".join(f"{k} = {json.dumps(v)}" for k, v in env.items()) + " }")
        return "\n".join(lines) + "\n"

    return (table("everything")
            + table("filesystem", [work])
            + table("memory", env={"MEMORY_FILE_PATH": os.path.join(folder, "memory.jsonl")}))


def session(binary, model, servers):
    """(ms to session-start, ms to the first model request, tools offered)."""
    with tempfile.TemporaryDirectory() as folder:
        work = os.path.join(folder, "work")
        os.makedirs(work)
        os.makedirs(os.path.join(folder, "home"))
        config = os.path.join(folder, "config.toml")
        with open(config, "w") as out:
            out.write("[exec]\nlogin_shell = false\n")
            if servers:
                out.write(servers_toml(folder, work))
        env = dict(os.environ, HOME=os.path.join(folder, "home"),
                   AGENT_STATE_DIR=os.path.join(folder, "state"), AGENT_API_URL=model.url)
        env.pop("AGENT_SCRIPT", None)
        model.arrived = None
        began = time.perf_counter()
        child = subprocess.Popen(
            [binary, "--prompt", "x", "--work-dir", work, "--config", config],
            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env)
        first = child.stdout.readline()
        started = time.perf_counter() - began
        rest = child.stdout.read()
        child.wait()
        assert b'"session-start"' in first, first
        assert b'"type":"error"' not in rest, rest
        return started * 1000, (model.arrived - began) * 1000, len(model.tools)


def tools_list_ms(name, args=()):
    """One server spawned here, `initialize` and `tools/list` answered."""
    child = subprocess.Popen([os.path.join(SERVERS, "mcp-server-" + name), *args],
                             stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                             stderr=subprocess.DEVNULL)
    began = time.perf_counter()
    send = lambda message: (child.stdin.write((json.dumps(message) + "\n").encode()),
                            child.stdin.flush())
    send({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": "bench", "version": "1"}}})
    send({"jsonrpc": "2.0", "method": "notifications/initialized"})
    send({"jsonrpc": "2.0", "id": 2, "method": "tools/list"})
    while json.loads(child.stdout.readline()).get("id") != 2:
        pass
    elapsed = (time.perf_counter() - began) * 1000
    child.kill()
    child.wait()
    return elapsed


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--binary", default=os.path.join(ROOT, "target", "release", "agent"))
    parser.add_argument("--runs", type=int, default=10)
    args = parser.parse_args()
    model = FirstRequest()
    figures = {0: ([], [], 0), 3: ([], [], 0)}
    for _ in range(args.runs):
        for servers in (0, 3):
            start, request, tools = session(args.binary, model, servers)
            figures[servers][0].append(start)
            figures[servers][1].append(request)
            figures[servers] = (figures[servers][0], figures[servers][1], tools)
    load = os.getloadavg()
    print(f"{args.runs} sessions each, interleaved; load average {load[0]:.2f} {load[1]:.2f}")
    print(f"{'servers':>8} {'tools':>6} {'to session-start':>18} {'to first request':>18}")
    medians = {}
    for servers, (starts, requests, tools) in figures.items():
        medians[servers] = (statistics.median(starts), statistics.median(requests))
        print(f"{servers:>8} {tools:>6} {medians[servers][0]:>15.1f} ms {medians[servers][1]:>15.1f} ms")
    added = medians[3][1] - medians[0][1]
    print(f"three servers add {added:.1f} ms to the first request "
          f"({medians[3][1] / medians[0][1]:.1f}x)")
    with tempfile.TemporaryDirectory() as work:
        servers = [("everything", []), ("filesystem", [work]), ("memory", [])]
        together = []
        for _ in range(args.runs):
            began = time.perf_counter()
            with ThreadPoolExecutor(len(servers)) as pool:
                list(pool.map(lambda server: tools_list_ms(*server), servers))
            together.append((time.perf_counter() - began) * 1000)
        alone = {name: statistics.median(tools_list_ms(name, extra) for _ in range(3))
                 for name, extra in servers}
    print(f"for scale, the three spawned at once by this script, all tools/list answered: "
          f"{statistics.median(together):.0f} ms (median of {args.runs}); the agent's added time "
          f"is {added / statistics.median(together):.2f}x that")
    print("each alone, median of 3: " + ", ".join(f"{name} {ms:.0f} ms" for name, ms in alone.items()))


if __name__ == "__main__":
    main()
