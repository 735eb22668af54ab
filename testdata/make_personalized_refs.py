#!/usr/bin/env python3
"""Writes the personalized PageRank references of the two real graphs.

Run from this folder: python3 make_personalized_refs.py [GRAPH...] (needs
NetworkX; made with 3.6.1; takes a few minutes; GRAPH names limit the run). For each graph G it writes

  G.personalize.txt   "id weight": every 1000th vertex in id order, weights
                      1, 2, 3, 1, ... (the graph file's ids);
  G.pagerank_personalized.tsv.gz
                      "id score" by id, every vertex: PageRank with alpha
                      0.85 and that personalization (the dangling mass
                      following it, NetworkX's default), NetworkX's semantics
                      as in README.md, converged to an L1 change < 1e-15;
                      its header counts the iterations NetworkX's own
                      pagerank runs at tol=1e-6 with the personalization.

  G.pagerank_weighted.tsv.gz
                      "id score" by id, every vertex: PageRank with the edge
                      weights weight(u, v) below (the file's ids; both
                      directions of the road graph's edges, each its own
                      weight) and the personalization, to an L1 change
                      < 1e-15, written to 14 significant digits (Σ of the
                      rounding errors < 1e-13, the scores summing to 1); its
                      header counts the iterations NetworkX's pagerank runs
                      at tol=1e-6 with weights and personalization;
  G.pagerank_weighted_top20.tsv
                      "id score": the 20 highest scores of PageRank with
                      those weights and no personalization, to an L1 change
                      < 1e-15, 14 significant digits. (Every vertex of both
                      vectors would be 3 MB of digits: the full vector is the
                      one that has both weights and personalization.)

The converged vectors are checked against NetworkX's pagerank run to its
tol=1e-13 (an L1 change below N * 1e-13) to 1e-7 in L1.
"""
import gzip
import sys

import networkx as nx
from networkx.algorithms.link_analysis.pagerank_alg import _pagerank_python

ALPHA = 0.85


def read_slashdot(path):
    edges = []
    with gzip.open(path, "rt") as f:
        for line in f:
            if line.startswith("#") or not line.strip():
                continue
            u, v = line.split()[:2]
            edges.append((int(u), int(v)))
    return edges


def read_mtx(path):
    edges = []
    with open(path) as f:
        header = f.readline()
        symmetric = "symmetric" in header
        size_seen = False
        for line in f:
            if line.startswith("%") or not line.strip():
                continue
            if not size_seen:
                size_seen = True
                continue
            u, v = (int(x) for x in line.split()[:2])
            edges.append((u, v))
            if symmetric and u != v:
                edges.append((v, u))
    return edges  # the file's ids, 1-based


GRAPHS = {
    "soc-Slashdot0902": ("soc-Slashdot0902.txt.gz", read_slashdot),
    "road-luxembourg-osm": ("road-luxembourg-osm.mtx", read_mtx),
}


def weight(u, v):
    """The weight of edge (u, v) by the file's ids: 0, 0.5, ..., 3, exact in
    float32 (the tests derive the same; make_refs.py of the golden graphs
    uses this formula too)."""
    return ((3 * u + 5 * v) % 7) / 2


def converged(ids, succ, pers):
    """Power iteration over lists with NetworkX's semantics, until the L1
    change is below 1e-15. ids are sorted; succ[i] lists (j, w) for the
    distinct edges out of ids[i], j an index and w the weight (1.0 without
    weights); pers a list of normalised weights. A vertex whose out-edges
    weigh 0 in all is dangling."""
    n = len(ids)
    out = [sum(w for _, w in s) for s in succ]
    x = [1.0 / n] * n
    dangling = [i for i in range(n) if out[i] == 0]
    for it in range(1, 100001):
        nxt = [0.0] * n
        for i, edges in enumerate(succ):
            if out[i]:
                share = ALPHA * x[i] / out[i]
                for j, w in edges:
                    nxt[j] += share * w
        dsum = ALPHA * sum(x[i] for i in dangling)
        for i in range(n):
            nxt[i] += dsum * pers[i] + (1.0 - ALPHA) * pers[i]
        l1 = sum(abs(a - b) for a, b in zip(nxt, x))
        x = nxt
        if l1 < 1e-15:
            return x, it
    raise RuntimeError("no convergence")


def weighted_refs(name, edges, ids, index, pers, weights):
    """Writes name.pagerank_weighted.tsv.gz (see the module doc)."""
    wg = nx.DiGraph()
    wg.add_weighted_edges_from((u, v, weight(u, v)) for u, v in edges)
    succ = [sorted((index[w], d["weight"]) for _, w, d in wg.out_edges(v, data=True)) for v in ids]
    uniform = [1.0 / len(ids)] * len(ids)
    a, ia = converged(ids, succ, uniform)
    b, ib = converged(ids, succ, weights)
    check = _pagerank_python(wg, alpha=ALPHA, tol=1e-13, max_iter=1000, personalization=pers)
    assert sum(abs(check[v] - b[index[v]]) for v in ids) < 1e-7, name
    _, k = networkx_iterations(wg, pers)
    with gzip.GzipFile(name + ".pagerank_weighted.tsv.gz", "wb", mtime=0) as raw:
        raw.write(f"# networkx_iterations={k} (NetworkX's pagerank, tol=1e-6, weights, personalize.txt)\n".encode())
        raw.write(f"# id\tscore (weights, personalize.txt, L1 change < 1e-15 after {ib} iterations)\n".encode())
        raw.write("".join(f"{v}\t{b[index[v]]:.14g}\n" for v in ids).encode())
    top = sorted(ids, key=lambda v: (-float(f"{a[index[v]]:.14g}"), v))[:20]
    with open(name + ".pagerank_weighted_top20.tsv", "w") as f:
        f.write(f"# id\tscore (weights, no personalization, L1 change < 1e-15 after {ia} iterations)\n")
        f.write("".join(f"{v}\t{a[index[v]]:.14g}\n" for v in top))
    print(name, "weighted:", ia, "and", ib, "iterations to 1e-15; NetworkX at tol=1e-6:", k)


def networkx_iterations(g, pers):
    for k in range(1, 1001):
        try:
            pr = _pagerank_python(g, alpha=ALPHA, tol=1e-6, max_iter=k, personalization=pers)
        except nx.PowerIterationFailedConvergence:
            continue
        return pr, k
    raise RuntimeError("no convergence")


def main():
    for name, (path, read) in GRAPHS.items():
        if len(sys.argv) > 1 and name not in sys.argv[1:]:
            continue
        edges = read(path)
        g = nx.DiGraph()
        g.add_edges_from(edges)
        ids = sorted(g)
        index = {v: i for i, v in enumerate(ids)}
        succ = [sorted((index[w], 1.0) for w in g.successors(v)) for v in ids]
        pers = {v: float(1 + k % 3) for k, v in enumerate(ids[::1000])}
        with open(name + ".personalize.txt", "w") as f:
            f.write("# id weight (written by make_personalized_refs.py)\n")
            for v in sorted(pers):
                f.write(f"{v} {pers[v]:g}\n")
        total = sum(pers.values())
        weights = [pers.get(v, 0.0) / total for v in ids]
        x, iters = converged(ids, succ, weights)
        check = _pagerank_python(g, alpha=ALPHA, tol=1e-13, max_iter=1000, personalization=pers)
        # NetworkX stops at an L1 change below N * 1e-13 (8e-9 on Slashdot),
        # its error concentrated on the seeds: agreement to 1e-7 in L1.
        assert sum(abs(check[v] - x[index[v]]) for v in ids) < 1e-7, name
        _, k = networkx_iterations(g, pers)
        with gzip.GzipFile(name + ".pagerank_personalized.tsv.gz", "wb", mtime=0) as raw:
            raw.write(f"# networkx_iterations={k} (NetworkX's pagerank, tol=1e-6, personalize.txt)\n".encode())
            raw.write(f"# id\tscore (personalize.txt, alpha 0.85, L1 change < 1e-15 after {iters} iterations)\n".encode())
            raw.write("".join(f"{v}\t{x[index[v]]:.17g}\n" for v in ids).encode())
        print(name, len(ids), "vertices,", iters, "iterations to 1e-15; NetworkX at tol=1e-6:", k)
        weighted_refs(name, edges, ids, index, pers, weights)


if __name__ == "__main__":
    main()
