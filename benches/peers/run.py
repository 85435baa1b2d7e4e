#!/usr/bin/env python3
"""Our agent against the two peers a user would otherwise pick, on one task.

    python3 benches/peers/run.py --agent dist/agent --runs 5

Every tool is spawned on the same scripted task and talks HTTP to a mock model
server on 127.0.0.1 that this script runs (in a child process, so serving
does not compete with the measuring threads for the GIL):

  turn 1: the model answers with ONE tool call of the tool's own
          command-running tool (found by name in the request's tools list),
          running `echo hello > out.txt`;
  turn 2: once the request carries the tool's result, the model answers
          with the final text "done".

The mock answers at once (no simulated model latency), so every figure is
the tool's own overhead. It decides the turn from the conversation in the
request (a tool result present or not), never from a counter, so a tool's
side requests (titles, quota checks, token counting) cannot shift the script;
those are answered too (a short text, or 404 for an unknown path) and listed.

Tools measured:
  agent (script)  dist/agent --script FILE: the scripted model, no network;
  agent (http)    dist/agent with AGENT_API_URL -> mock, OpenAI Chat
                  Completions SSE (the like-for-like row);
  codex (npm)     the `codex` command npm installs (`codex exec --json`),
                  OpenAI Responses API SSE; on Node < 22 its node launcher
                  stays resident as the parent of the native binary;
  codex (native)  the native binary from the npm package, without the launcher;
  claude          `claude -p ... --output-format stream-json --verbose`,
                  Anthropic Messages SSE.

Figures, per tool, median over --runs (after one untimed warm-up run each;
runs are interleaved round-robin across the tools):
  first byte   spawn -> first byte on the tool's stdout;
  last byte    spawn -> last byte on stdout (the end of the run's output);
  wall         spawn -> exit of the spawned process (the whole task);
  tree RSS     peak over the run of the SUM of VmRSS over the process tree
               (the spawned process and every descendant, found through
               the parent links in /proc/*/stat), sampled every --sample-ms;
               shared pages are counted once per process that maps them;
  max RSS      ru_maxrss from wait4() of the spawned process: the largest
               single process among it and the descendants it reaped, a
               lower bound of the tree's peak that sampling cannot miss;
  CPU          user + system seconds from the same wait4() rusage.

Only the Python 3.11 standard library; the peers come from npm (see README).
"""

import argparse
import gzip
import http.server
import json
import os
import platform
import re
import resource
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
NODE_ROOT = os.path.join(HERE, "node_modules-root")
COMMAND = "echo hello > out.txt"
PROMPT = "Create the file out.txt containing the word hello, by running the shell command: echo hello > out.txt"
FINAL = "done"
PAGE = os.sysconf("SC_PAGE_SIZE")


# --------------------------------------------------------------------------
# The mock model server (runs as `run.py --serve-mock LOG`, in a child process)
# --------------------------------------------------------------------------

def sse(name, data):
    head = f"event: {name}\n" if name else ""
    return f"{head}data: {json.dumps(data, separators=(',', ':'))}\n\n"


def pieces(text, size=7):
    return [text[i:i + size] for i in range(0, len(text), size)] or [""]


def tool_list(body, kind):
    """(name, json schema) of every tool a request offers, whatever the API."""
    found = []

    def visit(tools):
        for tool in tools or []:
            if not isinstance(tool, dict):
                continue
            if kind == "chat" and isinstance(tool.get("function"), dict):
                function = tool["function"]
                found.append((function.get("name", ""), function.get("parameters") or {}))
            elif tool.get("type") == "namespace":
                visit(tool.get("tools"))
            elif "name" in tool:
                schema = tool.get("parameters") or tool.get("input_schema") or {}
                found.append((tool["name"], schema))

    visit(body.get("tools"))
    return found


SHELL_TOOLS = ["exec", "exec_command", "shell_command", "shell", "Bash", "bash",
               "run_command", "run_shell_command", "local_shell"]


def shell_call(body, kind):
    """The command-running tool of this request and its arguments, or None."""
    tools = dict(tool_list(body, kind))
    for name in SHELL_TOOLS:
        if name in tools:
            schema = tools[name]
            props = schema.get("properties") or {}
            args = {}
            for key in ("command", "cmd"):
                if key in props:
                    if props[key].get("type") == "array":
                        args[key] = ["bash", "-lc", COMMAND]
                    else:
                        args[key] = COMMAND
                    break
            else:
                args["command"] = COMMAND
            if "description" in props:
                args["description"] = "Write hello to out.txt"
            return name, args
    return None


def has_tool_result(body, kind):
    if kind == "chat":
        return any(m.get("role") == "tool" for m in body.get("messages") or [])
    if kind == "responses":
        return any(isinstance(item, dict) and item.get("type", "").endswith("call_output")
                   for item in body.get("input") or [])
    for message in body.get("messages") or []:
        content = message.get("content")
        if isinstance(content, list) and any(
                isinstance(block, dict) and block.get("type") == "tool_result" for block in content):
            return True
    return False


def chat_stream(call, text):
    def chunk(delta, finish=None):
        return sse(None, {"id": "chatcmpl-mock", "object": "chat.completion.chunk",
                          "created": 1700000000, "model": "mock-model",
                          "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]})
    out = [chunk({"role": "assistant", "content": ""})]
    if call:
        name, args = call
        out.append(chunk({"tool_calls": [{"index": 0, "id": "call_mock_1", "type": "function",
                                          "function": {"name": name, "arguments": ""}}]}))
        for piece in pieces(json.dumps(args)):
            out.append(chunk({"tool_calls": [{"index": 0, "function": {"arguments": piece}}]}))
        out.append(chunk({}, "tool_calls"))
    else:
        for piece in pieces(text):
            out.append(chunk({"content": piece}))
        out.append(chunk({}, "stop"))
    out.append(sse(None, {"id": "chatcmpl-mock", "object": "chat.completion.chunk",
                          "created": 1700000000, "model": "mock-model", "choices": [],
                          "usage": {"prompt_tokens": 100, "completion_tokens": 10, "total_tokens": 110}}))
    out.append("data: [DONE]\n\n")
    return out


def responses_stream(call, text, model):
    usage = {"input_tokens": 100, "input_tokens_details": {"cached_tokens": 0},
             "output_tokens": 10, "output_tokens_details": {"reasoning_tokens": 0},
             "total_tokens": 110}
    base = {"id": "resp_mock", "object": "response", "created_at": 1700000000,
            "model": model, "status": "in_progress", "output": []}
    out = [sse("response.created", {"type": "response.created", "sequence_number": 0, "response": base}),
           sse("response.in_progress", {"type": "response.in_progress", "sequence_number": 1, "response": base})]
    if call:
        name, args = call
        raw = json.dumps(args)
        item = {"id": "fc_mock_1", "type": "function_call", "status": "in_progress",
                "call_id": "call_mock_1", "name": name, "arguments": ""}
        out.append(sse("response.output_item.added", {"type": "response.output_item.added",
                                                      "output_index": 0, "item": item}))
        for piece in pieces(raw):
            out.append(sse("response.function_call_arguments.delta",
                           {"type": "response.function_call_arguments.delta",
                            "item_id": "fc_mock_1", "output_index": 0, "delta": piece}))
        out.append(sse("response.function_call_arguments.done",
                       {"type": "response.function_call_arguments.done",
                        "item_id": "fc_mock_1", "output_index": 0, "arguments": raw}))
        done = dict(item, status="completed", arguments=raw)
    else:
        item = {"id": "msg_mock_1", "type": "message", "status": "in_progress",
                "role": "assistant", "content": []}
        out.append(sse("response.output_item.added", {"type": "response.output_item.added",
                                                      "output_index": 0, "item": item}))
        out.append(sse("response.content_part.added",
                       {"type": "response.content_part.added", "item_id": "msg_mock_1",
                        "output_index": 0, "content_index": 0,
                        "part": {"type": "output_text", "text": "", "annotations": []}}))
        for piece in pieces(text):
            out.append(sse("response.output_text.delta",
                           {"type": "response.output_text.delta", "item_id": "msg_mock_1",
                            "output_index": 0, "content_index": 0, "delta": piece}))
        out.append(sse("response.output_text.done",
                       {"type": "response.output_text.done", "item_id": "msg_mock_1",
                        "output_index": 0, "content_index": 0, "text": text}))
        part = {"type": "output_text", "text": text, "annotations": []}
        out.append(sse("response.content_part.done",
                       {"type": "response.content_part.done", "item_id": "msg_mock_1",
                        "output_index": 0, "content_index": 0, "part": part}))
        done = dict(item, status="completed", content=[part])
    out.append(sse("response.output_item.done", {"type": "response.output_item.done",
                                                 "output_index": 0, "item": done}))
    out.append(sse("response.completed", {"type": "response.completed",
                                          "response": dict(base, status="completed",
                                                           output=[done], usage=usage)}))
    return out


def anthropic_message(call, text, model):
    if call:
        name, args = call
        content = [{"type": "tool_use", "id": "toolu_mock_1", "name": name, "input": args}]
        stop = "tool_use"
    else:
        content = [{"type": "text", "text": text}]
        stop = "end_turn"
    return {"id": "msg_mock", "type": "message", "role": "assistant", "model": model,
            "content": content, "stop_reason": stop, "stop_sequence": None,
            "usage": {"input_tokens": 100, "output_tokens": 10}}


def anthropic_stream(call, text, model):
    out = [sse("message_start", {"type": "message_start", "message": {
        "id": "msg_mock", "type": "message", "role": "assistant", "model": model,
        "content": [], "stop_reason": None, "stop_sequence": None,
        "usage": {"input_tokens": 100, "output_tokens": 1}}})]
    if call:
        name, args = call
        out.append(sse("content_block_start", {"type": "content_block_start", "index": 0,
                                               "content_block": {"type": "tool_use", "id": "toolu_mock_1",
                                                                 "name": name, "input": {}}}))
        for piece in pieces(json.dumps(args)):
            out.append(sse("content_block_delta", {"type": "content_block_delta", "index": 0,
                                                   "delta": {"type": "input_json_delta",
                                                             "partial_json": piece}}))
        stop = "tool_use"
    else:
        out.append(sse("content_block_start", {"type": "content_block_start", "index": 0,
                                               "content_block": {"type": "text", "text": ""}}))
        for piece in pieces(text):
            out.append(sse("content_block_delta", {"type": "content_block_delta", "index": 0,
                                                   "delta": {"type": "text_delta", "text": piece}}))
        stop = "end_turn"
    out.append(sse("content_block_stop", {"type": "content_block_stop", "index": 0}))
    out.append(sse("message_delta", {"type": "message_delta",
                                     "delta": {"stop_reason": stop, "stop_sequence": None},
                                     "usage": {"output_tokens": 10}}))
    out.append(sse("message_stop", {"type": "message_stop"}))
    return out


class MockHandler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    log_file = None
    lock = threading.Lock()

    def log_message(self, *args):
        pass

    def record(self, run, status, role, note=""):
        entry = {"run": run, "t": time.time(), "method": self.command, "path": self.path,
                 "status": status, "role": role, "note": note}
        with self.lock:
            self.log_file.write(json.dumps(entry) + "\n")
            self.log_file.flush()

    def send_json(self, status, data):
        body = json.dumps(data).encode()
        self.send_response(status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def send_stream(self, events):
        self.send_response(200)
        self.send_header("content-type", "text/event-stream")
        self.send_header("cache-control", "no-cache")
        self.send_header("connection", "close")
        self.end_headers()
        self.wfile.write("".join(events).encode())
        self.wfile.flush()
        self.close_connection = True

    def read_body(self):
        length = int(self.headers.get("content-length") or 0)
        raw = self.rfile.read(length) if length else b""
        encoding = (self.headers.get("content-encoding") or "").lower()
        try:
            if encoding == "gzip":
                raw = gzip.decompress(raw)
            elif encoding == "deflate":
                raw = zlib.decompress(raw)
            elif encoding:
                return None, f"undecodable content-encoding {encoding}"
            return (json.loads(raw) if raw else {}), ""
        except ValueError as error:
            return None, f"bad body: {error}"

    def handle_any(self):
        match = re.match(r"^/r(\d+)(/.*)?$", self.path)
        run = int(match.group(1)) if match else None
        path = (match.group(2) or "/") if match else self.path
        path = path.split("?", 1)[0]
        body, problem = self.read_body() if self.command in ("POST", "PUT") else ({}, "")
        if body is None:
            self.record(run, 400, "error", problem)
            return self.send_json(400, {"error": {"message": problem}})
        if self.command == "POST" and path.endswith("/messages/count_tokens"):
            self.record(run, 200, "side", "count_tokens")
            return self.send_json(200, {"input_tokens": 100})
        if self.command == "POST" and path.endswith("/chat/completions"):
            kind = "chat"
        elif self.command == "POST" and path.endswith("/responses"):
            kind = "responses"
        elif self.command == "POST" and path.endswith("/messages"):
            kind = "messages"
        else:
            self.record(run, 404, "unknown")
            return self.send_json(404, {"error": {"type": "not_found_error",
                                                  "message": f"mock: no {self.command} {path}"}})
        model = body.get("model") or "mock-model"
        call = shell_call(body, kind)
        if call is None:
            # A side request (a title, a quota check): no shell tool offered.
            role, text, call = "side", "ok", None
        elif has_tool_result(body, kind):
            role, text, call = "final", FINAL, None
        else:
            role, text = "tool-call", ""
        self.record(run, 200, role, call[0] if call else "")
        if kind == "chat":
            return self.send_stream(chat_stream(call, text))
        if kind == "responses":
            return self.send_stream(responses_stream(call, text, model))
        if body.get("stream"):
            return self.send_stream(anthropic_stream(call, text, model))
        return self.send_json(200, anthropic_message(call, text, model))

    do_GET = do_POST = do_PUT = do_HEAD = do_DELETE = handle_any


def serve_mock(log_path, lifetime):
    MockHandler.log_file = open(log_path, "a")
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), MockHandler)
    server.daemon_threads = True
    print(server.server_address[1], flush=True)

    def stop_on_eof():
        # The parent holds our stdin: when it exits, for whatever reason, we do.
        sys.stdin.read()
        server.shutdown()

    threading.Thread(target=stop_on_eof, daemon=True).start()
    threading.Timer(lifetime, server.shutdown).start()
    server.serve_forever(poll_interval=0.2)
    os._exit(0)


class Mock:
    def __init__(self, folder, lifetime):
        self.log = os.path.join(folder, "mock.jsonl")
        open(self.log, "w").close()
        self.process = subprocess.Popen(
            [sys.executable, os.path.abspath(__file__), "--serve-mock", self.log,
             "--mock-lifetime", str(lifetime)],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        self.port = int(self.process.stdout.readline())

    def url(self, run):
        return f"http://127.0.0.1:{self.port}/r{run}"

    def entries(self, run):
        with open(self.log) as handle:
            return [e for e in map(json.loads, handle) if e["run"] == run]

    def stray(self):
        with open(self.log) as handle:
            return [e for e in map(json.loads, handle) if e["run"] is None]

    def stop(self):
        self.process.stdin.close()
        try:
            self.process.wait(5)
        except subprocess.TimeoutExpired:
            self.process.kill()


# --------------------------------------------------------------------------
# Measuring one spawned process tree
# --------------------------------------------------------------------------

def stat_of(pid):
    """(ppid, session id) of a process, or None once it is gone."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as handle:
            stat = handle.read()
    except OSError:
        return None
    fields = stat[stat.rfind(b")") + 2:].split()
    return int(fields[1]), int(fields[3])


def proc_table():
    """pid -> (ppid, session id) of every process."""
    table = {}
    for name in os.listdir("/proc"):
        if name.isdigit():
            info = stat_of(int(name))
            if info:
                table[int(name)] = info
    return table


class TreeWatch:
    """The process tree under `root`: its descendants through the parent
    links of /proc/*/stat, and the members of its session (so a process
    whose parent died and was reparented still counts). A process's stat is
    read once, when it first shows up, to keep each sample cheap."""

    def __init__(self, root):
        self.root = root
        self.known = {}

    def members(self):
        pids = {int(name) for name in os.listdir("/proc") if name.isdigit()}
        for pid in list(self.known):
            if pid not in pids:
                del self.known[pid]
        for pid in pids - self.known.keys():
            info = stat_of(pid)
            if info:
                self.known[pid] = info
        children = {}
        for pid, (ppid, _) in self.known.items():
            children.setdefault(ppid, []).append(pid)
        found = {pid for pid, (_, sid) in self.known.items() if sid == self.root}
        stack = [self.root]
        while stack:
            pid = stack.pop()
            if pid in self.known:
                found.add(pid)
                stack.extend(children.get(pid, []))
        return found


def memory_of(pid):
    """(VmRSS, VmHWM, Pss) in bytes: the resident size now, the peak of the
    process's address space since its last exec, and the proportional set
    size (each shared page divided among the processes mapping it)."""
    rss = hwm = pss = 0
    try:
        with open(f"/proc/{pid}/status", "rb") as handle:
            for line in handle:
                if line.startswith(b"VmRSS:"):
                    rss = int(line.split()[1]) * 1024
                elif line.startswith(b"VmHWM:"):
                    hwm = int(line.split()[1]) * 1024
        with open(f"/proc/{pid}/smaps_rollup", "rb") as handle:
            for line in handle:
                if line.startswith(b"Pss:"):
                    pss = int(line.split()[1]) * 1024
                    break
    except (OSError, ValueError, IndexError):
        pass
    return rss, hwm, pss


class Sample:
    pass


def measure(command, cwd, env, timeout, sample_s):
    result = Sample()
    result.first = result.last = None
    result.tree_peak = result.pss_peak = 0
    result.samples = 0
    result.sample_cost = 0.0
    result.seen = {}
    chunks = []
    began = time.perf_counter()
    child = subprocess.Popen(command, cwd=cwd, env=env, stdin=subprocess.DEVNULL,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             start_new_session=True)
    pid = child.pid
    errs = []

    def read_out():
        fd = child.stdout.fileno()
        while True:
            data = os.read(fd, 65536)
            if not data:
                break
            now = time.perf_counter()
            if result.first is None:
                result.first = now - began
            result.last = now - began
            chunks.append(data)

    def read_err():
        errs.append(child.stderr.read())

    exited = threading.Event()

    watch = TreeWatch(pid)
    hwm = {}

    def sampler():
        while not exited.is_set():
            started = time.perf_counter()
            members = watch.members()
            total = total_pss = 0
            for member in members:
                rss, peak, pss = memory_of(member)
                total += rss
                total_pss += pss
                hwm[member] = max(hwm.get(member, 0), peak)
            result.tree_peak = max(result.tree_peak, total)
            result.pss_peak = max(result.pss_peak, total_pss)
            result.samples += 1
            result.sample_cost += time.perf_counter() - started
            for member in members - result.seen.keys():
                try:
                    with open(f"/proc/{member}/cmdline", "rb") as handle:
                        line = handle.read().replace(b"\0", b" ").decode("utf-8", "replace")
                except OSError:
                    line = "?"
                result.seen[member] = line.strip()[:200]
            exited.wait(sample_s)

    targets = (read_out, read_err) if sample_s is None else (read_out, read_err, sampler)
    threads = [threading.Thread(target=f, daemon=True) for f in targets]
    for thread in threads:
        thread.start()
    def kill():
        try:
            os.killpg(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass

    timer = threading.Timer(timeout, kill)
    timer.start()
    _, status, usage = os.wait4(pid, 0)
    result.wall = time.perf_counter() - began
    timer.cancel()
    exited.set()
    child.returncode = os.waitstatus_to_exitcode(status)
    # Anything of the session still alive after the spawned process exited.
    lingering = [p for p, (_, sid) in proc_table().items() if sid == pid]
    result.lingering = len(lingering)
    if lingering:
        try:
            os.killpg(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    for thread in threads:
        thread.join(10)
    result.timed_out = result.wall >= timeout
    result.timeout = timeout
    result.code = child.returncode
    result.stdout = b"".join(chunks).decode("utf-8", "replace")
    result.stderr = (errs[0] if errs else b"").decode("utf-8", "replace")
    # ru_maxrss of the spawned process is useless here: at exec Linux keeps the
    # high-water mark of the address space left behind (this Python's, the
    # child being vfork()ed) in the child's maxrss. Each
    # process's own VmHWM, read while it lives, is used instead.
    result.maxrss = max(hwm.values(), default=0)
    result.tree_procs = len(result.seen)
    result.cpu = usage.ru_utime + usage.ru_stime
    return result


# --------------------------------------------------------------------------
# The tools
# --------------------------------------------------------------------------

def clean_env(home):
    env = {k: v for k, v in os.environ.items()
           if not re.match(r"^(OPENAI_|ANTHROPIC_|AGENT_|STRAYL_|CODEX_|CLAUDE_|XDG_|npm_)", k)}
    env.update(HOME=home, XDG_CONFIG_HOME=os.path.join(home, ".config"),
               XDG_STATE_HOME=os.path.join(home, ".local/state"),
               XDG_CACHE_HOME=os.path.join(home, ".cache"),
               XDG_DATA_HOME=os.path.join(home, ".local/share"))
    return env


def version_of(command):
    try:
        out = subprocess.run(command, capture_output=True, text=True, timeout=30,
                             stdin=subprocess.DEVNULL)
        return (out.stdout.strip() or out.stderr.strip()).splitlines()[0]
    except (OSError, subprocess.TimeoutExpired, IndexError) as error:
        return f"unknown ({error})"


class Tool:
    name = ""
    needs_mock = True
    missing = None

    def __init__(self, home):
        self.home = home
        os.makedirs(home, exist_ok=True)

    def prepare(self, run, url, work):
        """(command, env) of one run."""
        raise NotImplementedError


class AgentScript(Tool):
    name = "agent (script)"
    needs_mock = False

    def __init__(self, home, binary):
        super().__init__(home)
        self.binary = binary
        self.script = os.path.join(home, "script.json")
        with open(self.script, "w") as handle:
            json.dump({"turns": [
                {"tool_calls": [{"name": "exec", "args": {"command": COMMAND}}]},
                {"text": FINAL},
            ]}, handle)
        self.version = version_of([binary, "--version"])

    def prepare(self, run, url, work):
        env = clean_env(self.home)
        env["AGENT_STATE_DIR"] = os.path.join(self.home, "state")
        return [self.binary, "--script", self.script, "--prompt", PROMPT,
                "--work-dir", work, "--unattended"], env


class AgentHttp(AgentScript):
    name = "agent (http)"
    needs_mock = True

    def prepare(self, run, url, work):
        env = clean_env(self.home)
        env.update(AGENT_STATE_DIR=os.path.join(self.home, "state"),
                   AGENT_API_URL=url + "/v1", AGENT_API_KEY="dummy")
        return [self.binary, "--prompt", PROMPT, "--work-dir", work, "--unattended"], env


CODEX_CONFIG = """\
model = "gpt-5.1"
model_provider = "mock"

[model_providers.mock]
name = "mock"
base_url = "{url}/v1"
env_key = "OPENAI_API_KEY"
wire_api = "responses"
"""


class Codex(Tool):
    def __init__(self, home, command, name):
        super().__init__(home)
        self.command = command
        self.name = name
        self.codex_home = os.path.join(home, ".codex")
        os.makedirs(self.codex_home, exist_ok=True)
        if not os.access(command[-1], os.X_OK):
            self.missing = f"{command[-1]} is not installed (see README: npm install)"
            self.version = "-"
        else:
            self.version = version_of(command + ["--version"])

    def prepare(self, run, url, work):
        with open(os.path.join(self.codex_home, "config.toml"), "w") as handle:
            handle.write(CODEX_CONFIG.format(url=url))
        env = clean_env(self.home)
        env.update(CODEX_HOME=self.codex_home, OPENAI_API_KEY="dummy")
        return self.command + [
            "exec", "--json", "--skip-git-repo-check",
            "--dangerously-bypass-approvals-and-sandbox", "--color", "never",
            "-C", work, PROMPT], env


class Claude(Tool):
    name = "claude"

    def __init__(self, home, binary):
        super().__init__(home)
        self.binary = binary
        if not os.access(binary, os.X_OK):
            self.missing = f"{binary} is not installed (see README: npm install)"
            self.version = "-"
        else:
            self.version = version_of([binary, "--version"])

    def prepare(self, run, url, work):
        env = clean_env(self.home)
        env.update(ANTHROPIC_BASE_URL=url, ANTHROPIC_API_KEY="dummy",
                   DISABLE_TELEMETRY="1", DISABLE_ERROR_REPORTING="1",
                   DISABLE_AUTOUPDATER="1", CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC="1")
        if os.geteuid() == 0:
            # Claude Code refuses --dangerously-skip-permissions as root unless
            # it is told that it runs in a sandbox.
            env["IS_SANDBOX"] = "1"
        return [self.binary, "-p", PROMPT, "--output-format", "stream-json", "--verbose",
                "--dangerously-skip-permissions"], env


# --------------------------------------------------------------------------
# Runs, checks, table
# --------------------------------------------------------------------------

def check(tool, sample, work, entries):
    """Why this run does not count, or None when the task was done."""
    if sample.timed_out:
        return f"timed out after {sample.timeout:g} s"
    if sample.code != 0:
        tail = (sample.stderr.strip() or sample.stdout.strip())[-300:]
        return f"exit status {sample.code}: {tail}"
    try:
        with open(os.path.join(work, "out.txt")) as handle:
            content = handle.read()
    except OSError:
        return "out.txt was not written"
    if content != "hello\n":
        return f"out.txt holds {content!r}"
    if FINAL not in sample.stdout:
        return "the final text is not in the output"
    if tool.needs_mock:
        roles = [e["role"] for e in entries]
        if "tool-call" not in roles or "final" not in roles:
            return f"the mock did not serve both turns: {roles}"
    return None


def fmt_ms(seconds):
    return "-" if seconds is None else f"{seconds * 1000:.0f} ms"


def fmt_mib(size):
    return "-" if size is None else f"{size / 1048576:.1f} MiB"


def median(values):
    values = [v for v in values if v is not None]
    return statistics.median(values) if values else None


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--agent", default=os.path.join(ROOT, "dist/agent"))
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--node-root", default=NODE_ROOT,
                        help="the npm --prefix the peers were installed into")
    parser.add_argument("--timeout", type=float, default=120, help="seconds a run may take")
    parser.add_argument("--sample-ms", type=float, default=5)
    parser.add_argument("--only", help="comma-separated tool names to run (agent-script, "
                        "agent-http, codex-npm, codex-native, claude)")
    parser.add_argument("--keep", action="store_true", help="keep the scratch folder")
    parser.add_argument("--verbose", action="store_true", help="print every run")
    parser.add_argument("--serve-mock", help=argparse.SUPPRESS)
    parser.add_argument("--mock-lifetime", type=float, default=3600, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve_mock:
        return serve_mock(args.serve_mock, args.mock_lifetime)

    args.load_before = os.getloadavg()[0]
    binary = os.path.abspath(args.agent)
    if not os.access(binary, os.X_OK):
        sys.exit(f"{binary} is not there: build it first (scripts/build-dist.sh)")
    node_modules = os.path.join(os.path.abspath(args.node_root), "node_modules")
    codex_launcher = os.path.join(node_modules, ".bin", "codex")
    codex_native = os.path.join(node_modules, "@openai", f"codex-linux-{ 'x64' if platform.machine() == 'x86_64' else 'arm64'}",
                                "vendor", f"{platform.machine()}-unknown-linux-musl", "bin", "codex")
    claude = os.path.join(node_modules, ".bin", "claude")

    # The tools' homes outside /tmp: Codex declines part of its set-up when
    # CODEX_HOME is under a temp dir. The work folders are in /tmp.
    os.makedirs(os.path.join(HERE, ".scratch"), exist_ok=True)
    scratch = tempfile.mkdtemp(prefix="run-", dir=os.path.join(HERE, ".scratch"))
    mock = Mock(scratch, lifetime=max(600, args.timeout * (args.runs + 1) * 6))
    try:
        tools = [
            ("agent-script", AgentScript(os.path.join(scratch, "home-agent-script"), binary)),
            ("agent-http", AgentHttp(os.path.join(scratch, "home-agent-http"), binary)),
            ("codex-npm", Codex(os.path.join(scratch, "home-codex-npm"), [codex_launcher], "codex (npm)")),
            ("codex-native", Codex(os.path.join(scratch, "home-codex-native"), [codex_native], "codex (native)")),
            ("claude", Claude(os.path.join(scratch, "home-claude"), claude)),
        ]
        if args.only:
            wanted = set(args.only.split(","))
            tools = [(key, tool) for key, tool in tools if key in wanted]
        results = {key: {"time": [], "memory": []} for key, _ in tools}
        failures = {key: [] for key, _ in tools}
        side = {key: {} for key, _ in tools}
        counter = 0
        # Run 0 of each tool is the untimed warm-up (page cache, first-run files).
        for index in range(args.runs + 1):
            for key, tool in tools:
                if tool.missing:
                    continue
                if index >= 2 and not results[key]["time"] and len(failures[key]) >= 4:
                    continue  # nothing but failures from the start: give up on it
                for kind in ("time", "memory"):
                    counter += 1
                    # A fresh folder outside any git repository (this one's
                    # scratch is inside the agent's checkout).
                    work = tempfile.mkdtemp(prefix=f"peers-work-{counter}-")
                    command, env = tool.prepare(counter, mock.url(counter), work)
                    sample = measure(command, work, env, args.timeout,
                                     args.sample_ms / 1000 if kind == "memory" else None)
                    entries = mock.entries(counter)
                    problem = check(tool, sample, work, entries)
                    for entry in entries:
                        if entry["role"] not in ("tool-call", "final"):
                            label = (f"{entry['method']} {entry['path'].split('/', 2)[-1]} -> "
                                     f"{entry['status']} ({entry['role']})")
                            side[key][label] = side[key].get(label, 0) + 1
                    if args.verbose:
                        print(f"[{tool.name} #{index} {kind}] {problem or 'ok'} "
                              f"first={fmt_ms(sample.first)} wall={fmt_ms(sample.wall)} "
                              f"tree={fmt_mib(sample.tree_peak)} procs={sample.tree_procs} "
                              f"requests={[e['role'] for e in entries]}", file=sys.stderr)
                    if problem:
                        failures[key].append(problem)
                    elif index > 0:
                        results[key][kind].append(sample)
                    if args.keep:
                        with open(os.path.join(work, "_run.txt"), "w") as handle:
                            handle.write(f"{tool.name} #{index} {kind}: {problem or 'ok'}\n"
                                         f"command: {command}\nrequests: {entries}\nprocesses seen:\n")
                            for member, line in sorted(sample.seen.items()):
                                handle.write(f"  {member} {line}\n")
                            handle.write(f"--- stdout\n{sample.stdout}\n--- stderr\n{sample.stderr}\n")
                    else:
                        shutil.rmtree(work, ignore_errors=True)
        report(args, tools, results, failures, side, mock)
    finally:
        mock.stop()
        if args.keep:
            print(f"scratch kept in {scratch}, work folders in {tempfile.gettempdir()}/peers-work-*")
        else:
            shutil.rmtree(scratch, ignore_errors=True)


def report(args, tools, results, failures, side, mock):
    print(f"host: {platform.platform()}, {os.cpu_count()} CPUs, Python {platform.python_version()}, "
          f"node {version_of(['node', '--version'])}; load average 1 min: {args.load_before:.2f} before, "
          f"{os.getloadavg()[0]:.2f} after (other work on the host skews every figure)")
    print(f"medians of {args.runs} timed runs (no sampling) and {args.runs} memory runs (/proc sampled "
          f"every {args.sample_ms:g} ms) per tool, after 1 warm-up of each kind; tools interleaved")
    print("versions:")
    for key, tool in tools:
        print(f"  {tool.name:16} {tool.version}")
    print()
    head = (f"{'tool':16} {'ok':>5} {'first byte':>11} {'last byte':>11} {'wall':>9} "
            f"{'wall range':>15} {'tree RSS':>10} {'tree PSS':>10} {'max HWM':>10} {'procs':>5} {'CPU':>9}")
    print(head)
    print("-" * len(head))
    figures = {}
    sampling = []
    for key, tool in tools:
        samples = results[key]["time"]
        memory = results[key]["memory"]
        if tool.missing or not samples or not memory:
            reason = tool.missing or (failures[key][-1] if failures[key] else "no run")
            reason = " ".join(reason.split())
            print(f"{tool.name:16} not measured: {reason[:400]}")
            continue
        row = {
            "first": median(s.first for s in samples),
            "last": median(s.last for s in samples),
            "wall": median(s.wall for s in samples),
            "tree": median(s.tree_peak for s in memory),
            "maxrss": median(s.maxrss for s in memory),
            "pss": median(s.pss_peak for s in memory),
            "cpu": median(s.cpu for s in samples),
        }
        figures[key] = row
        procs = max(s.tree_procs for s in memory)
        walls = [s.wall * 1000 for s in samples]
        spread = f"{min(walls):.0f}-{max(walls):.0f} ms"
        ok = f"{min(len(samples), len(memory))}/{args.runs}"
        print(f"{tool.name:16} {ok:>5} {fmt_ms(row['first']):>11} {fmt_ms(row['last']):>11} "
              f"{fmt_ms(row['wall']):>9} {spread:>15} {fmt_mib(row['tree']):>10} {fmt_mib(row['pss']):>10} "
              f"{fmt_mib(row['maxrss']):>10} {procs:>5} {row['cpu'] * 1000:>6.0f} ms")
        interval = statistics.mean(s.wall / max(s.samples, 1) for s in memory)
        cost = statistics.mean(s.sample_cost / max(s.samples, 1) for s in memory)
        sampling.append(f"{tool.name}: {statistics.mean(s.samples for s in memory):.0f} samples a run, "
                        f"one every {interval * 1000:.1f} ms, {cost * 1000:.2f} ms each")
        if failures[key]:
            print(f"{'':16} {len(failures[key])} failed run(s), last: {' '.join(failures[key][-1].split())[:300]}")
    print()
    base_key = "agent-http" if "agent-http" in figures else ("agent-script" if "agent-script" in figures else None)
    if base_key and len(figures) > 1:
        base = figures[base_key]
        print(f"ratios, tool / {dict(tools)[base_key].name} (higher = the tool needs more):")
        print(f"{'tool':16} {'first byte':>11} {'last byte':>11} {'wall':>9} {'tree RSS':>10} {'tree PSS':>10} {'max HWM':>10} {'CPU':>9}")
        for key, tool in tools:
            if key == base_key or key not in figures:
                continue
            row = figures[key]

            def ratio(name):
                return f"{row[name] / base[name]:.1f}x" if base[name] else "-"
            print(f"{tool.name:16} {ratio('first'):>11} {ratio('last'):>11} {ratio('wall'):>9} "
                  f"{ratio('tree'):>10} {ratio('pss'):>10} {ratio('maxrss'):>10} {ratio('cpu'):>9}")
        print()
    extra = [(tool.name, side[key]) for key, tool in tools if side[key]]
    if extra:
        print("requests besides the two scripted model turns (all runs, warm-up included):")
        for name, labels in extra:
            for label, count in sorted(labels.items()):
                print(f"  {name:16} {count:3} x {label}")
    stray = mock.stray()
    if stray:
        print(f"requests outside any run's URL prefix: {len(stray)}")
    print("sampling: " + "; ".join(sampling))
    print("first/last byte: of stdout; wall: spawn to exit of the spawned process; CPU: from the "
          "timed runs. tree RSS: peak "
          "of the sum of VmRSS over the process tree, sampled (pages shared by processes of the tree, "
          "a fork's copy-on-write pages included, count once per process); tree PSS: the same with "
          "Pss (shared pages divided among their users); max HWM: the largest single process's VmHWM; "
          "procs: processes seen in the tree (max over runs), all from the memory runs. CPU: "
          "user+system seconds of the spawned process and the descendants it reaped (wait4).")


if __name__ == "__main__":
    main()
