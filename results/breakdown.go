package results

import (
	"fmt"
	"io"
	"text/tabwriter"
)

// WriteBreakdown writes the time breakdown of Lv et al. Fig. 7 and 10 of a
// run as a table: per BFS level, summed over all searches, the vertices
// found, the bytes sent, the frontier bytes before and after encoding, and
// the seconds spent traversing, reducing, communicating and compressing &
// sieving, and the messages sent; then the totals. The header names the
// partition and grid when the run records them, and a last line gives the
// per-rank loads and their max/mean imbalance when the run measured them.
func (r *Graph500Run) WriteBreakdown(w io.Writer) error {
	type row struct {
		frontier, bytes, raw, encoded        int64
		traverse, reduce, communicate, compr float64
		topDown, bottomUp                    int
		codec                                string
		messages                             int64
	}
	add := func(x *row, l Level) {
		x.frontier += l.Frontier
		x.bytes += l.Bytes
		x.raw += l.RawBytes
		x.encoded += l.EncodedBytes
		x.traverse += l.Traverse
		x.reduce += l.Reduce
		x.communicate += l.Communicate
		x.compr += l.Compress
		x.messages += l.Messages
	}
	var rows []row
	var total row
	for _, s := range r.Searches {
		for _, l := range s.Levels {
			for len(rows) <= l.Level {
				rows = append(rows, row{})
			}
			x := &rows[l.Level]
			add(x, l)
			add(&total, l)
			switch l.Direction {
			case "top-down":
				x.topDown++
			case "bottom-up":
				x.bottomUp++
			}
			if l.Codec != "" && x.codec == "" {
				x.codec = l.Codec
			}
		}
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "level\tsearches TD/BU\tvertices\tbytes sent\tframe raw\tframe encoded\tcodec\ttraversing s\treducing s\tcommunication s\tcompression&sieve s\tmessages\t\n")
	for lvl, x := range rows {
		fmt.Fprintf(tw, "%d\t%d/%d\t%d\t%d\t%d\t%d\t%s\t%.4f\t%.4f\t%.4f\t%.4f\t%d\t\n", lvl, x.topDown, x.bottomUp, x.frontier,
			x.bytes, x.raw, x.encoded, x.codec, x.traverse, x.reduce, x.communicate, x.compr, x.messages)
	}
	fmt.Fprintf(tw, "all\t\t%d\t%d\t%d\t%d\t\t%.4f\t%.4f\t%.4f\t%.4f\t%d\t\n", total.frontier, total.bytes, total.raw, total.encoded,
		total.traverse, total.reduce, total.communicate, total.compr, total.messages)
	if _, err := fmt.Fprintf(w, "BFS breakdown summed over %d searches (%s exchange, %s codec, direction %s%s):\n",
		len(r.Searches), r.Exchange, r.Codec, r.Direction, r.partitionLabel()); err != nil {
		return fmt.Errorf("breakdown: %w", err)
	}
	if err := tw.Flush(); err != nil {
		return fmt.Errorf("breakdown: %w", err)
	}
	return r.writeLoads(w)
}
