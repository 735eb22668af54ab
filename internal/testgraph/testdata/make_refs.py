#!/usr/bin/env python3
"""Writes the reference answers beside the golden graphs of this folder.

Run from this folder: python3 make_refs.py (needs NetworkX; made with 3.6.1).
For each graph G it writes
  G.bfs.txt       BFS over the undirected view from the first id of the
                  first edge line: reached vertices, eccentricity, level sizes
                  (the format of the repository's testdata/*.bfs.txt);
  G.pagerank.tsv  PageRank, alpha 0.85 (a power iteration with NetworkX's
                  semantics, checked against NetworkX's own to 1e-9), of the directed graph (Matrix Market
                  symmetric files: both directions), every vertex that occurs
                  in an edge, duplicates collapsed, self-loops kept, dangling
                  mass spread uniformly, converged to an L1 change < 1e-15:
                  one "id score" line per vertex, by id.
"""
import networkx as nx
from networkx.algorithms.link_analysis.pagerank_alg import _pagerank_python

GRAPHS = ["small-undirected.el", "kron8.el", "web-directed.el", "grid-7x5.mtx"]


def read(path):
    edges, symmetric, one_based = [], False, False
    with open(path) as f:
        lines = f.read().splitlines()
    if path.endswith(".mtx"):
        symmetric = "symmetric" in lines[0]
        one_based = True
        body = [l for l in lines if l.strip() and not l.startswith("%")][1:]
    else:
        body = [l for l in lines if l.strip() and not l.startswith("#")]
    for l in body:
        u, v = (int(x) for x in l.split()[:2])
        if one_based:
            u, v = u - 1, v - 1
        edges.append((u, v))
        if symmetric and u != v:
            edges.append((v, u))
    return edges


def converged_pagerank(g):
    n = g.number_of_nodes()
    x = {v: 1.0 / n for v in g}
    # Power iteration exactly as NetworkX's pure-Python pagerank, run until the
    # L1 change is below 1e-15 (NetworkX itself stops at N * tol).
    out = {v: g.out_degree(v) for v in g}
    dangling = [v for v in g if out[v] == 0]
    for _ in range(100000):
        last = x
        x = dict.fromkeys(last, 0.0)
        dsum = 0.85 * sum(last[v] for v in dangling)
        for u in last:
            if out[u]:
                share = 0.85 * last[u] / out[u]
                for v in g.successors(u):
                    x[v] += share
        for v in x:
            x[v] += dsum / n + (1.0 - 0.85) / n
        if sum(abs(x[v] - last[v]) for v in x) < 1e-15:
            return x
    raise RuntimeError("no convergence")


def main():
    for name in GRAPHS:
        edges = read(name)
        und = nx.Graph()
        und.add_edges_from(edges)
        src = edges[0][0]
        dist = nx.single_source_shortest_path_length(und, src)
        depth = max(dist.values())
        sizes = [0] * (depth + 1)
        for d in dist.values():
            sizes[d] += 1
        shown = src + 1 if name.endswith(".mtx") else src
        with open(name + ".bfs.txt", "w") as f:
            f.write(f"file={name}\nsource={shown} (first vertex id of the first edge line)\n")
            f.write("graph=undirected view of the edge set (direction ignored)\n")
            f.write(f"reachable_vertices_including_source={len(dist)}\n")
            f.write(f"max_depth(eccentricity_of_source)={depth}\n")
            f.write(f"total_nodes_in_graph={und.number_of_nodes()}\n")
            f.write("level_sizes=" + ",".join(map(str, sizes)) + "\n")
        dg = nx.DiGraph()
        dg.add_edges_from(edges)
        pr = converged_pagerank(dg)
        check = _pagerank_python(dg, alpha=0.85, tol=1e-12, max_iter=1000)
        assert max(abs(check[v] - pr[v]) for v in pr) < 1e-9, name
        with open(name + ".pagerank.tsv", "w") as f:
            f.write("# id\tscore (power iteration with NetworkX semantics, alpha 0.85, L1 change < 1e-15)\n")
            for v in sorted(pr):
                shown = v + 1 if name.endswith(".mtx") else v
                f.write(f"{shown}\t{pr[v]:.17g}\n")


if __name__ == "__main__":
    main()
