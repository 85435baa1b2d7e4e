#!/usr/bin/env python3
"""A tiny MCP server over stdio for the black-box tests (tests/suite/mcp.rs).

It misbehaves on request, so the tests can show what the agent does when a
server hangs or dies. Flags:
  --silent          never answer anything (not even `initialize`)
  --pid-file PATH   write its process id there
  --child MARKER    start a grandchild that sleeps, with MARKER in its
                    command line, so a test can look for leftovers
  --catalogue       offer 24 more tools, one per topic (weather, calendar,
                    SQL...), for the relevance gate; each answers "NAME ran"
  --ticket PATH     the tool `ticket` answers with a ticket whose
                    description is that file's text, as `json.dumps` writes
                    it: every character outside ASCII and every line break
                    escaped, as many Python servers answer
Tools: echo (read-only), ticket (read-only), write, env, fail (isError),
slow (never answers), die (exits with status 3 instead of answering).
"""

import json
import os
import subprocess
import sys
import time

args = sys.argv[1:]
silent = "--silent" in args


def flag(name):
    if name in args:
        return args[args.index(name) + 1]
    return None


pid_file = flag("--pid-file")
if pid_file:
    with open(pid_file, "w") as out:
        out.write(str(os.getpid()))

marker = flag("--child")
if marker:
    subprocess.Popen(
        [sys.executable, "-c", "import time; time.sleep(600)", marker],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )

TOOLS = [
    {
        "name": "echo",
        "description": "Returns its text",
        "inputSchema": {
            "type": "object",
            "properties": {"text": {"type": "string"}},
            "required": ["text"],
        },
        "annotations": {"readOnlyHint": True},
    },
    {
        "name": "ticket",
        "description": "Returns a support ticket",
        "inputSchema": {"type": "object"},
        "annotations": {"readOnlyHint": True},
    },
    {"name": "write", "description": "Pretends to change something", "inputSchema": {"type": "object"}},
    {"name": "env", "description": "Lists its environment", "inputSchema": {"type": "object"}},
    {"name": "fail", "description": "Always fails", "inputSchema": {"type": "object"}},
    {"name": "slow", "description": "Never answers", "inputSchema": {"type": "object"}},
    {"name": "die", "description": "Exits instead of answering", "inputSchema": {"type": "object"}},
]

TOPICS = [
    ("weather_forecast", "Weather forecast for a city, with rain and wind"),
    ("create_calendar_event", "Create a calendar event with attendees"),
    ("create_issue", "Open a new issue in a GitHub repository"),
    ("run_sql_query", "Run a read-only SQL query on the Postgres database"),
    ("send_email", "Send an email message to a recipient"),
    ("translate_text", "Translate text between human languages"),
    ("resize_image", "Resize a PNG or JPEG image"),
    ("convert_currency", "Convert an amount between currencies at today's rate"),
    ("lookup_dns", "Look up the DNS records of a domain name"),
    ("list_pull_requests", "List the open pull requests of a repository"),
    ("post_slack_message", "Post a message to a Slack channel"),
    ("create_invoice", "Create an invoice for a customer in the billing system"),
    ("search_wikipedia", "Search Wikipedia articles by keyword"),
    ("stock_price", "Current price of a stock ticker symbol"),
    ("geocode_address", "Turn a street address into latitude and longitude"),
    ("compress_archive", "Compress files into a zip archive"),
    ("scan_vulnerabilities", "Scan container images for known vulnerabilities"),
    ("schedule_backup", "Schedule a nightly backup of a volume"),
    ("rotate_logs", "Rotate and compress old log files"),
    ("query_metrics", "Query Prometheus metrics over a time range"),
    ("book_meeting_room", "Book a meeting room in the office"),
    ("order_lunch", "Order lunch delivery for the team"),
    ("feature_flags", "Toggle feature flags in the flag service"),
    ("play_music", "Play a song on the office speakers"),
]
if "--catalogue" in args:
    TOOLS = TOOLS + [
        {"name": name, "description": description, "inputSchema": {"type": "object"}}
        for name, description in TOPICS
    ]
CATALOGUE = {name for name, _ in TOPICS}


def send(message):
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def text(value, is_error=False):
    return {"content": [{"type": "text", "text": value}], "isError": is_error}


def call(name, arguments):
    if name == "echo":
        return text("echo: " + arguments.get("text", ""))
    if name == "ticket":
        with open(flag("--ticket"), encoding="utf-8") as source:
            description = source.read()
        return text(json.dumps({"id": 4821, "status": "open", "description": description}))
    if name == "write":
        return text("written")
    if name == "env":
        return text("\n".join(sorted(f"{k}={v}" for k, v in os.environ.items())))
    if name == "fail":
        return text("it went wrong", is_error=True)
    if name == "die":
        sys.stderr.write("fake server: dying as asked\n")
        sys.stderr.flush()
        os._exit(3)
    if name == "slow":
        return None  # no answer, ever
    if name in CATALOGUE and "--catalogue" in args:
        return text(name + " ran")
    raise KeyError(name)


for line in sys.stdin:
    if silent:
        continue
    message = json.loads(line)
    if "id" not in message:
        continue
    method = message.get("method")
    params = message.get("params") or {}
    reply = {"jsonrpc": "2.0", "id": message["id"]}
    if method == "initialize":
        reply["result"] = {
            "protocolVersion": params.get("protocolVersion", "2025-06-18"),
            "capabilities": {"tools": {}},
            "serverInfo": {"name": "fake", "version": "1"},
        }
    elif method == "tools/list":
        reply["result"] = {"tools": TOOLS}
    elif method == "tools/call":
        try:
            result = call(params.get("name"), params.get("arguments") or {})
        except KeyError as unknown:
            reply["error"] = {"code": -32602, "message": f"unknown tool {unknown}"}
            send(reply)
            continue
        if result is None:
            continue
        reply["result"] = result
    elif method == "ping":
        reply["result"] = {}
    else:
        reply["error"] = {"code": -32601, "message": "no such method: " + str(method)}
    send(reply)

# stdin closed: a server ends here; sleep a little to be killed instead,
# like a server that does not notice.
time.sleep(0.1)
