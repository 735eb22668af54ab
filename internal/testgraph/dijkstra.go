package testgraph

import "container/heap"

// Dijkstra is the oracle of a shortest path search from root over the
// weighted arcs weight (by the file's ids; weight[[2]int64{u, v}] is the arc
// u→v's, the caller puts in the directions it searches along): a plain
// binary-heap Dijkstra in float32, as graphrun sums distances, returning
// the distance of every vertex reached.
func Dijkstra(weight map[[2]int64]float32, root int64) map[int64]float32 {
	type arc struct {
		v int64
		w float32
	}
	adj := map[int64][]arc{}
	for k, w := range weight {
		adj[k[0]] = append(adj[k[0]], arc{k[1], w})
	}
	dist := map[int64]float32{root: 0}
	q := &distQueue{{root, 0}}
	for q.Len() > 0 {
		x := heap.Pop(q).(queued)
		if x.d > dist[x.v] {
			continue
		}
		for _, a := range adj[x.v] {
			d := x.d + a.w
			if old, ok := dist[a.v]; !ok || d < old {
				dist[a.v] = d
				heap.Push(q, queued{a.v, d})
			}
		}
	}
	return dist
}

// queued is a vertex in Dijkstra's queue at a tentative distance.
type queued struct {
	v int64
	d float32
}

// distQueue is Dijkstra's priority queue, nearest first.
type distQueue []queued

func (q distQueue) Len() int           { return len(q) }
func (q distQueue) Less(i, j int) bool { return q[i].d < q[j].d }
func (q distQueue) Swap(i, j int)      { q[i], q[j] = q[j], q[i] }
func (q *distQueue) Push(x any)        { *q = append(*q, x.(queued)) }
func (q *distQueue) Pop() any {
	old := *q
	x := old[len(old)-1]
	*q = old[:len(old)-1]
	return x
}
