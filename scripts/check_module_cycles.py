#!/usr/bin/env python3
"""Report import cycles between the engine's top-level modules.

Reads every non-test source file of crates/flitsim-core/src, takes each `crate::name`
reference (outside comments and `#[cfg(test)]` sections) as an edge from the file's
top-level module to `name`, and prints the strongly connected components of more than
one module. The layers (schema, topology, routing, link, faults, router, endpoint,
traffic, stats, congestion, config, sim) must form no such cycle.

Usage: python3 scripts/check_module_cycles.py   (exit status 1 on a cycle)
Standard library only.
"""

import os
import re
import sys
from collections import defaultdict

SRC = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "crates", "flitsim-core", "src")


def graph():
    tops = {e[:-3] if e.endswith(".rs") else e for e in os.listdir(SRC) if e != "lib.rs"}
    edges = defaultdict(set)
    for root, _, files in os.walk(SRC):
        for name in files:
            if not name.endswith(".rs") or name.startswith("test"):
                continue
            path = os.path.join(root, name)
            top = os.path.relpath(path, SRC).split(os.sep)[0].removesuffix(".rs")
            text = open(path, encoding="utf-8").read().split("#[cfg(test)]")[0]
            code = "\n".join(line for line in text.splitlines() if not line.strip().startswith("//"))
            for m in re.finditer(r"crate::(\w+)", code):
                if m.group(1) in tops and m.group(1) != top:
                    edges[top].add(m.group(1))
    return tops, edges


def cycles(tops, edges):
    index, low, stack, on, out = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(edges[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            part = []
            while True:
                w = stack.pop()
                on.discard(w)
                part.append(w)
                if w == v:
                    break
            if len(part) > 1:
                out.append(sorted(part))

    for v in sorted(tops):
        if v not in index:
            visit(v)
    return out


if __name__ == "__main__":
    tops, edges = graph()
    found = cycles(tops, edges)
    for c in found:
        print("import cycle between modules: " + ", ".join(c) + "; the references:")
        for a in c:
            print(f"  {a} -> " + ", ".join(sorted(edges[a] & set(c))))
    print(f"{len(found)} import cycles among {len(tops)} top-level modules")
    sys.exit(1 if found else 0)
