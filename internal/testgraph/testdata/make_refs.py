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
                  one "id score" line per vertex, by id; its header counts
                  the iterations NetworkX's own pagerank runs at its default
                  tol=1e-6 (the smallest max_iter that does not raise
                  PowerIterationFailedConvergence);
  G.personalize.txt, G.dangling.txt, G.nstart.txt
                  "id weight" vectors over the vertices (personalize: every
                  7th vertex in id order, weights 0, 1, 2, ...; dangling:
                  every 5th from the third, weights 1..4; nstart: every
                  vertex, weights 1..5);
  G.pagerank_personalized.tsv
                  "id a b c" by id: a is PageRank with the personalization
                  (dangling mass following it), b with the personalization
                  and the dangling distribution, both converged to an L1
                  change < 1e-15; c is NetworkX's own answer with all three
                  vectors at tol=1e-6, whose iteration count is in the header.
  G.pagerank_weighted.tsv
                  "id a b c" by id: PageRank with the edge weights of
                  weight(u, v) below (the file's ids): a plain, b with the
                  personalization, both converged to an L1 change < 1e-15;
                  c NetworkX's own answer with the personalization at
                  tol=1e-6, whose iteration count is in the header;
and for each weighted graph W (u v w lines)
  W.pagerank_weighted.tsv
                  the same columns with the file's weights, each pair of
                  ids taking the smallest weight of its lines (graphrun's
                  rule; NetworkX's DiGraph keeps the last), and W's own
                  personalize.txt;
  W.sssp.txt      shortest path distances over the undirected view from the
                  first id of the first line, each pair joined by the
                  smallest weight of its lines (NetworkX's Dijkstra): one
                  "vertex distance" line per reached vertex, by id.
"""
import networkx as nx
from networkx.algorithms.link_analysis.pagerank_alg import _pagerank_python

GRAPHS = ["small-undirected.el", "kron8.el", "web-directed.el", "grid-7x5.mtx"]
WEIGHTED = ["weighted.wel"]


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


def power_iteration(g, p=None, q=None, x0=None, limit=1e-15):
    """Power iteration with NetworkX's semantics (personalization p,
    dangling distribution q, start x0: dicts, normalised here; q follows p
    when None) until the L1 change is below limit. Returns the scores and
    the iterations."""
    n = g.number_of_nodes()
    norm = lambda d: {v: d.get(v, 0.0) / sum(d.values()) for v in g}
    p = norm(p) if p else {v: 1.0 / n for v in g}
    q = norm(q) if q else p
    x = norm(x0) if x0 else {v: 1.0 / n for v in g}
    out = {v: g.out_degree(v) for v in g}
    dangling = [v for v in g if out[v] == 0]
    for it in range(1, 100001):
        last = x
        x = dict.fromkeys(last, 0.0)
        dsum = 0.85 * sum(last[v] for v in dangling)
        for u in last:
            if out[u]:
                share = 0.85 * last[u] / out[u]
                for v in g.successors(u):
                    x[v] += share
        for v in x:
            x[v] += dsum * q[v] + (1.0 - 0.85) * p[v]
        if sum(abs(x[v] - last[v]) for v in x) < limit:
            return x, it
    raise RuntimeError("no convergence")


def weight(u, v):
    """The weight of edge (u, v) of an unweighted graph, by the file's ids:
    0, 0.5, ..., 3, exact in float32 (the tests derive the same)."""
    return ((3 * u + 5 * v) % 7) / 2


def weighted_iteration(g, p=None, limit=1e-15):
    """power_iteration with the edges' "weight": u's rank goes to its
    out-edges in proportion to their weights; a vertex whose out-edges
    weigh 0 in all is dangling."""
    n = g.number_of_nodes()
    p = {v: p.get(v, 0.0) / sum(p.values()) for v in g} if p else {v: 1.0 / n for v in g}
    out = {v: sum(d["weight"] for _, _, d in g.out_edges(v, data=True)) for v in g}
    dangling = [v for v in g if out[v] == 0]
    x = {v: 1.0 / n for v in g}
    for it in range(1, 100001):
        last = x
        x = dict.fromkeys(last, 0.0)
        dsum = 0.85 * sum(last[v] for v in dangling)
        for u in last:
            if out[u]:
                share = 0.85 * last[u] / out[u]
                for _, v, d in g.out_edges(u, data=True):
                    x[v] += share * d["weight"]
        for v in x:
            x[v] += dsum * p[v] + (1.0 - 0.85) * p[v]
        if sum(abs(x[v] - last[v]) for v in x) < limit:
            return x, it
    raise RuntimeError("no convergence")


def weighted_refs(name, wg, shift):
    """Writes name.pagerank_weighted.tsv for the weighted DiGraph wg."""
    pers, _, _ = vectors(wg)
    a, _ = weighted_iteration(wg)
    b, _ = weighted_iteration(wg, p=pers)
    for ref, kw in ((a, {}), (b, {"personalization": pers})):
        check = _pagerank_python(wg, alpha=0.85, tol=1e-12, max_iter=1000, **kw)
        assert max(abs(check[v] - ref[v]) for v in ref) < 1e-9, name
    c, k = networkx_iterations(wg, personalization=pers)
    with open(name + ".pagerank_weighted.tsv", "w") as f:
        f.write(f"# networkx_iterations={k} (column c: NetworkX's pagerank, tol=1e-6)\n")
        f.write("# id\ta: weighted\tb: weighted, personalize.txt\tc: b at tol=1e-6\n")
        for v in sorted(a):
            f.write(f"{v + shift}\t{a[v]:.17g}\t{b[v]:.17g}\t{c[v]:.17g}\n")


def networkx_iterations(g, **kw):
    """NetworkX's own pagerank at tol=1e-6 and the number of iterations it
    runs: the smallest max_iter that does not raise. The L1 changes around
    the stop must be clear of N*tol, or another summation order could stop
    an iteration apart."""
    for k in range(1, 1001):
        try:
            pr = _pagerank_python(g, alpha=0.85, tol=1e-6, max_iter=k, **kw)
        except nx.PowerIterationFailedConvergence:
            continue
        return pr, k
    raise RuntimeError("no convergence")


def vectors(g):
    ids = sorted(g)
    pers = {v: float(k % 3) for k, v in enumerate(ids[::7])}
    dang = {v: float(1 + k % 4) for k, v in enumerate(ids[2::5])}
    start = {v: float(1 + k % 5) for k, v in enumerate(ids)}
    return pers, dang, start


def write_vector(path, vec, shift):
    with open(path, "w") as f:
        f.write("# id weight (written by make_refs.py)\n")
        for v in sorted(vec):
            f.write(f"{v + shift} {vec[v]:g}\n")


def personalized(name, dg):
    shift = 1 if name.endswith(".mtx") else 0
    pers, dang, start = vectors(dg)
    write_vector(name + ".personalize.txt", pers, shift)
    write_vector(name + ".dangling.txt", dang, shift)
    write_vector(name + ".nstart.txt", start, shift)
    a, _ = power_iteration(dg, p=pers)
    b, _ = power_iteration(dg, p=pers, q=dang)
    for ref, kw in ((a, {}), (b, {"dangling": dang})):
        check = _pagerank_python(dg, alpha=0.85, tol=1e-12, max_iter=1000, personalization=pers, **kw)
        assert max(abs(check[v] - ref[v]) for v in ref) < 1e-9, name
    c, k = networkx_iterations(dg, personalization=pers, dangling=dang, nstart=start)
    with open(name + ".pagerank_personalized.tsv", "w") as f:
        f.write(f"# networkx_iterations={k} (column c: NetworkX's pagerank, tol=1e-6)\n")
        f.write("# id\ta: personalize.txt\tb: personalize.txt, dangling.txt\tc: all three at tol=1e-6\n")
        for v in sorted(a):
            f.write(f"{v + shift}\t{a[v]:.17g}\t{b[v]:.17g}\t{c[v]:.17g}\n")


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
        pr, _ = power_iteration(dg)
        check = _pagerank_python(dg, alpha=0.85, tol=1e-12, max_iter=1000)
        assert max(abs(check[v] - pr[v]) for v in pr) < 1e-9, name
        _, iterations = networkx_iterations(dg)
        with open(name + ".pagerank.tsv", "w") as f:
            f.write(f"# networkx_iterations={iterations} (NetworkX's pagerank, tol=1e-6)\n")
            f.write("# id\tscore (power iteration with NetworkX semantics, alpha 0.85, L1 change < 1e-15)\n")
            for v in sorted(pr):
                shown = v + 1 if name.endswith(".mtx") else v
                f.write(f"{shown}\t{pr[v]:.17g}\n")
        personalized(name, dg)
        shift = 1 if name.endswith(".mtx") else 0
        wg = nx.DiGraph()
        wg.add_weighted_edges_from((u, v, weight(u + shift, v + shift)) for u, v in edges)
        weighted_refs(name, wg, shift)


def sssp():
    for name in WEIGHTED:
        g = nx.Graph()
        first = None
        with open(name) as f:
            for line in f:
                u, v, w = line.split()
                u, v, w = int(u), int(v), float(w)
                if first is None:
                    first = u
                if u == v:
                    continue
                if not g.has_edge(u, v) or w < g[u][v]["weight"]:
                    g.add_edge(u, v, weight=w)
        dist = nx.single_source_dijkstra_path_length(g, first)
        directed = nx.DiGraph()
        with open(name) as f:
            for line in f:
                u, v, w = line.split()
                u, v, w = int(u), int(v), float(w)
                if not directed.has_edge(u, v) or w < directed[u][v]["weight"]:
                    directed.add_edge(u, v, weight=w)
        write_vector(name + ".personalize.txt", vectors(directed)[0], 0)
        weighted_refs(name, directed, 0)
        with open(name + ".sssp.txt", "w") as f:
            f.write(f"# source {first}; vertex distance (NetworkX Dijkstra, minimum weight per pair)\n")
            for v in sorted(dist):
                f.write(f"{v} {dist[v]!r}\n")


if __name__ == "__main__":
    main()
    sssp()
