#!/usr/bin/env python3
"""The committed corpus carried through the encodings a tool's output comes
in, one blind-set folder each (injected.txt, benign.txt), for
`INJECTION_BENCH_EXTRA=OUT/NAME cargo bench --bench injection`: what
docs/benchmarks.md's "Version 14" table measures.

    python3 benches/injection/encodings.py OUT

plain     the texts as written (their \\u{HEX} escapes made characters)
json      a JSON string with ASCII escapes, as Python's json.dumps writes it
json2     that JSON inside another JSON string (an MCP result carrying it)
html      HTML-escaped, character references for what is not ASCII
qp        a quoted-printable mail body
glyph     one Cyrillic look-alike letter in each Latin word of 3 letters
          or more (a fixed seed: the same sets every run)
styled    Latin letters in mathematical sans-serif bold
"""

import glob
import html
import json
import os
import quopri
import random
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
LOOK_ALIKES = {"a": "а", "e": "е", "o": "о", "p": "р", "c": "с", "x": "х",
               "i": "і", "y": "у", "s": "ѕ", "j": "ј"}


def texts(kind):
    out = []
    for path in sorted(glob.glob(os.path.join(HERE, kind, "*.txt"))):
        with open(path, encoding="utf-8") as source:
            out += source.read().split("\n%%\n")
    return [re.sub(r"\\u\{([0-9A-Fa-f]+)\}", lambda m: chr(int(m.group(1), 16)), t) for t in out]


def glyph(text, rng):
    def one(match):
        word = match.group(0)
        at = [k for k, c in enumerate(word) if c in LOOK_ALIKES]
        if not at:
            return word
        k = rng.choice(at)
        return word[:k] + LOOK_ALIKES[word[k]] + word[k + 1:]
    return re.sub(r"[A-Za-z]{3,}", one, text)


def bold(text):
    return "".join(
        chr(0x1D5EE + ord(c) - 97) if "a" <= c <= "z"
        else chr(0x1D5D4 + ord(c) - 65) if "A" <= c <= "Z"
        else c
        for c in text
    )


def main(out):
    rng = random.Random(7)
    encodings = {
        "plain": lambda t: t,
        "json": lambda t: json.dumps({"tool": "fetch", "result": {"content": t}},
                                     ensure_ascii=True, indent=1),
        "json2": lambda t: json.dumps({"jsonrpc": "2.0", "result": {"content": [
            {"type": "text", "text": json.dumps({"body": t})}]}}),
        "html": lambda t: "<p>" + html.escape(t).encode("ascii", "xmlcharrefreplace").decode() + "</p>",
        "qp": lambda t: "Content-Type: text/plain; charset=utf-8\n"
                        "Content-Transfer-Encoding: quoted-printable\n\n"
                        + quopri.encodestring(t.encode()).decode(),
        "glyph": lambda t: glyph(t, rng),
        "styled": bold,
    }
    corpus = {kind: texts(kind) for kind in ("injected", "benign")}
    for name, encode in encodings.items():
        folder = os.path.join(out, name)
        os.makedirs(folder, exist_ok=True)
        for kind, items in corpus.items():
            with open(os.path.join(folder, kind + ".txt"), "w", encoding="utf-8") as sink:
                sink.write("\n%%\n".join(encode(t) for t in items))


if __name__ == "__main__":
    main(sys.argv[1])
