#!/usr/bin/env python3
"""Writes web-directed.el and grid-7x5.mtx (seeded; run from this folder).

small-undirected.el is written by hand and kron8.el by
`graphrun generate --scale 8 --edgefactor 8 -o kron8.el`.
"""
import random


def web_directed():
    rng = random.Random(20261124)
    ids = [7 * k + 3 for k in range(150)]  # sparse ids
    edges = []
    for _ in range(700):
        u = rng.choice(ids[:120])  # the last 30 ids only receive links: dangling
        v = rng.choice(ids[:8]) if rng.random() < 0.4 else rng.choice(ids)  # hubs
        edges.append((u, v))
    edges.append((ids[5], ids[5]))  # a self-loop
    edges.append(edges[10])  # a duplicate
    with open("web-directed.el", "w") as f:
        for u, v in edges:
            f.write(f"{u} {v}\n")


def grid(rows=7, cols=5):
    entries = []
    for r in range(rows):
        for c in range(cols):
            v = r * cols + c + 1
            if c + 1 < cols:
                entries.append((v + 1, v))
            if r + 1 < rows:
                entries.append((v + cols, v))
    with open(f"grid-{rows}x{cols}.mtx", "w") as f:
        f.write("%%MatrixMarket matrix coordinate pattern symmetric\n")
        f.write(f"% a {rows}x{cols} grid graph, lower triangle stored (1-based)\n")
        f.write(f"{rows * cols} {rows * cols} {len(entries)}\n")
        for a, b in entries:
            f.write(f"{a} {b}\n")


if __name__ == "__main__":
    web_directed()
    grid()
