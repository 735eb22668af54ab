#!/usr/bin/env python3
"""Writes web-directed.el, grid-7x5.mtx and weighted.wel (seeded; run from
this folder).

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


def weighted():
    """An undirected weighted graph for shortest paths: 240 vertices in a
    large component and a small one, weights k/1024 (exact in float32 and
    float64, so distances are exact sums), duplicates with other weights,
    zero weights and a self-loop."""
    rng = random.Random(20261128)
    edges = []
    for _ in range(900):
        u, v = rng.randrange(200), rng.randrange(200)
        edges.append((u, v, rng.randrange(1024)))
    for _ in range(60):  # a second component
        edges.append((200 + rng.randrange(40), 200 + rng.randrange(40), rng.randrange(1024)))
    for k in range(0, 900, 90):  # duplicates, reversed, with another weight
        u, v, _ = edges[k]
        edges.append((v, u, rng.randrange(1024)))
    edges[7] = (edges[7][0], edges[7][1], 0)  # zero weights
    edges[8] = (edges[8][0], edges[8][1], 0)
    edges.append((3, 3, 5))  # a self-loop
    with open("weighted.wel", "w") as f:
        for u, v, k in edges:
            f.write(f"{u} {v} {k / 1024!r}\n")


if __name__ == "__main__":
    web_directed()
    grid()
    weighted()
