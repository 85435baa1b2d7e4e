#!/usr/bin/env python3
"""The time of each step of a scripted debug session, measured in one run.

    pip install debugpy; apt-get install -y lldb-19 gcc
    python3 benches/debugger.py [--binary target/release/agent] [--runs 5]

Each run is one agent session with the scripted model (no network) and
`[debugger] enabled = true`, through debugpy on a Python program with a
bug and through lldb-dap on a C program built here with `gcc -g`:
launch (adapter start, handshake, stop at the program's start) ->
breakpoints -> continue to the breakpoint -> stack -> variables ->
continue to the end (exit code). Each figure is the tool-result's
`duration_ms` (the call as the model waits for it: checks, the DAP
requests, framing and screening), the median over the runs; the Python
and C runs alternate, so a busy patch of the machine falls on both. The
first framed answer of a session (`stack`) also pays the one-time build
of the untrusted-content rule table, so `stack` is asked twice: the
second is what it costs afterwards.

Only the standard library.
"""

import argparse
import json
import os
import statistics
import subprocess
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

BUGGY_PY = """import sys


def average(values):
    total = 0
    for value in values:
        total += value
    count = len(values) - 1
    return total / count


def main():
    numbers = [4, 8, 15, 16, 23, 42]
    result = average(numbers)
    print("average:", result)
    sys.exit(0 if result == 18 else 3)


main()
"""

SUM_C = """#include <stdio.h>

static int sum(const int *values, int count) {
    int total = 0;
    for (int i = 0; i <= count; i++) {
        total += values[i];
    }
    return total;
}

int main(void) {
    int values[5] = {1, 2, 3, 4, 100};
    int total = sum(values, 4);
    printf("sum: %d\\n", total);
    return total == 10 ? 0 : 4;
}
"""

STEPS = ["launch", "breakpoints", "continue", "stack (first framed answer)", "stack again",
         "variables", "continue to the end"]


def calls(program, source, line):
    return [
        {"action": "launch", "program": program},
        {"action": "breakpoints", "path": source, "lines": [line]},
        {"action": "continue"},
        {"action": "stack"},
        {"action": "stack"},
        {"action": "variables"},
        {"action": "continue"},
    ]


def session(binary, work, config, script_calls):
    turns = [{"tool_calls": [{"name": "debug", "id": f"s{i}", "args": args}]}
             for i, args in enumerate(script_calls)]
    turns.append({"text": "done"})
    script = os.path.join(os.path.dirname(work), "script.json")
    with open(script, "w") as file:
        json.dump({"turns": turns}, file)
    started = time.perf_counter()
    done = subprocess.run(
        [binary, "--script", script, "--prompt", "go", "--work-dir", work,
         "--config", config, "--unattended"],
        stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=300)
    total = (time.perf_counter() - started) * 1000
    results = {}
    for line in done.stdout.splitlines():
        event = json.loads(line)
        if event["type"] == "tool-result":
            if not event["ok"]:
                raise SystemExit(f"{event['id']} failed: {event['output']}")
            results[event["id"]] = event["duration_ms"]
    ended = [json.loads(l) for l in done.stdout.splitlines()][-1]
    assert ended["type"] == "session-end", ended
    return [results[f"s{i}"] for i in range(len(script_calls))], total


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--binary", default=os.path.join(ROOT, "target/debug/agent"))
    parser.add_argument("--runs", type=int, default=5)
    options = parser.parse_args()
    root = tempfile.mkdtemp(prefix="debug-bench-")
    work = os.path.join(root, "work")
    os.makedirs(work)
    with open(os.path.join(work, "buggy.py"), "w") as file:
        file.write(BUGGY_PY)
    with open(os.path.join(work, "sum.c"), "w") as file:
        file.write(SUM_C)
    subprocess.run(["gcc", "-g", "-O0", "-o", "sum", "sum.c"], cwd=work, check=True)
    config = os.path.join(root, "config.toml")
    with open(config, "w") as file:
        file.write("[debugger]\nenabled = true\n")
    kinds = {
        "debugpy": calls("buggy.py", "buggy.py", 9),
        "lldb-dap": calls("sum", "sum.c", 6),
    }
    figures = {kind: [] for kind in kinds}
    totals = {kind: [] for kind in kinds}
    print(f"load average at the start: {os.getloadavg()}")
    for _ in range(options.runs):
        for kind, script_calls in kinds.items():
            steps, total = session(options.binary, work, config, script_calls)
            figures[kind].append(steps)
            totals[kind].append(total)
    print(f"load average at the end: {os.getloadavg()}")
    print(f"| step | debugpy (ms) | lldb-dap (ms) |")
    print("|---|---:|---:|")
    for index, step in enumerate(STEPS):
        row = [statistics.median(run[index] for run in figures[kind]) for kind in kinds]
        print(f"| {step} | {row[0]:.0f} | {row[1]:.0f} |")
    row = [statistics.median(totals[kind]) for kind in kinds]
    print(f"| whole session, spawn to exit | {row[0]:.0f} | {row[1]:.0f} |")


if __name__ == "__main__":
    main()
