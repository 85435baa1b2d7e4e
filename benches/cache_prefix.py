#!/usr/bin/env python3
"""The share of each request's input that the provider can read from its
prompt cache: over a 20-iteration session against a local mock server (one
tool call an iteration), for each request from the second on, the bytes of
its tools, system prompt and messages that repeat the previous request
exactly (its cacheable prefix), against all its input bytes. Both wire
formats. Goal (issue 13): at least 90% from the second iteration on.

    python3 benches/cache_prefix.py --binary target/debug/agent
"""

import argparse
import http.server
import json
import os
import subprocess
import sys
import tempfile
import threading

ITERATIONS = 20


def openai_turn(n, last):
    if last:
        chunks = [{"choices": [{"index": 0, "delta": {"content": "done"}}]},
                  {"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]}]
    else:
        args = json.dumps({"command": f"echo step {n}; seq 1 {20 + n}"})
        chunks = [{"choices": [{"index": 0, "delta": {"content": f"Step {n}."}}]},
                  {"choices": [{"index": 0, "delta": {"tool_calls": [{"index": 0, "id": f"call_{n}", "type": "function", "function": {"name": "exec", "arguments": args}}]}}]},
                  {"choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]}]
    chunks.append({"choices": [], "usage": {"prompt_tokens": 1000, "completion_tokens": 20}})
    body = "".join(f"data: {json.dumps(c)}\n\n" for c in chunks) + "data: [DONE]\n\n"
    return body.encode()


def anthropic_turn(n, last):
    events = [("message_start", {"type": "message_start", "message": {"id": "m", "type": "message", "role": "assistant", "content": [], "model": "c", "usage": {"input_tokens": 1000, "output_tokens": 1}}})]
    events.append(("content_block_start", {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}}))
    events.append(("content_block_delta", {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "done" if last else f"Step {n}."}}))
    events.append(("content_block_stop", {"type": "content_block_stop", "index": 0}))
    if not last:
        args = json.dumps({"command": f"echo step {n}; seq 1 {20 + n}"})
        events.append(("content_block_start", {"type": "content_block_start", "index": 1, "content_block": {"type": "tool_use", "id": f"toolu_{n}", "name": "exec", "input": {}}}))
        events.append(("content_block_delta", {"type": "content_block_delta", "index": 1, "delta": {"type": "input_json_delta", "partial_json": args}}))
        events.append(("content_block_stop", {"type": "content_block_stop", "index": 1}))
    events.append(("message_delta", {"type": "message_delta", "delta": {"stop_reason": "end_turn" if last else "tool_use"}, "usage": {"output_tokens": 20}}))
    events.append(("message_stop", {"type": "message_stop"}))
    return "".join(f"event: {name}\ndata: {json.dumps(data)}\n\n" for name, data in events).encode()


class Recorder(http.server.BaseHTTPRequestHandler):
    bodies = []
    fmt = "openai"

    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        Recorder.bodies.append(body)
        n = len(Recorder.bodies)
        turn = openai_turn if Recorder.fmt == "openai" else anthropic_turn
        payload = turn(n, n >= ITERATIONS)
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    def log_message(self, *args):
        pass


def strip_marks(value):
    if isinstance(value, dict):
        return {k: strip_marks(v) for k, v in value.items() if k != "cache_control"}
    if isinstance(value, list):
        return [strip_marks(v) for v in value]
    return value


def parts(body):
    """The request's input as the provider reads it, in order: tools,
    system, then each message; serialised, cache marks aside (they are
    not content)."""
    body = strip_marks(body)
    out = [json.dumps(body.get("tools", []), sort_keys=True), json.dumps(body.get("system", ""), sort_keys=True)]
    out += [json.dumps(m, sort_keys=True) for m in body["messages"]]
    return out


def prefix_share(before, after):
    shared = 0
    for old, new in zip(parts(before), parts(after)):
        if old != new:
            break
        shared += len(new)
    return shared, sum(len(p) for p in parts(after))


def run(binary, fmt):
    Recorder.bodies = []
    Recorder.fmt = fmt
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Recorder)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    with tempfile.TemporaryDirectory() as root:
        work = os.path.join(root, "work")
        os.mkdir(work)
        config = os.path.join(root, "config.toml")
        with open(config, "w") as f:
            f.write('[models.claude]\nformat = "anthropic"\nmodel = "c"\n[exec]\nlogin_shell = false\n')
        env = dict(os.environ, AGENT_API_URL=f"http://127.0.0.1:{server.server_port}/v1",
                   AGENT_CONFIG=config, AGENT_STATE_DIR=os.path.join(root, "state"), HOME=root)
        args = [binary, "--prompt", "step through", "--work-dir", work, "--max-iterations", str(ITERATIONS + 1)]
        if fmt == "anthropic":
            args += ["--model", "claude"]
        done = subprocess.run(args, env=env, stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=120)
        if done.returncode != 0:
            sys.exit(f"the session failed ({done.returncode}): {done.stderr[-2000:]}")
    server.shutdown()
    bodies = Recorder.bodies
    shares = [prefix_share(a, b) for a, b in zip(bodies, bodies[1:])]
    shared = sum(s for s, _ in shares)
    total = sum(t for _, t in shares)
    worst = min(s / t for s, t in shares)
    return len(bodies), shared / total, worst


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--binary", default="target/debug/agent")
    binary = parser.parse_args().binary
    for fmt in ["openai", "anthropic"]:
        requests, share, worst = run(binary, fmt)
        goal = "met" if worst >= 0.9 else "NOT met"
        print(f"{fmt:<10} {requests} requests: {share:.1%} of input bytes from the 2nd request on repeat the previous request (worst request {worst:.1%}; goal >= 90%: {goal})")


if __name__ == "__main__":
    main()
