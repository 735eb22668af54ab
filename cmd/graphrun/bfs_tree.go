package main

// Where a bfs --root search writes its tree while it runs: straight into
// the --out file on the process that reports, or, on a replica of rank 0
// of a replicated job (Kylix §V), into a spool file of its own, copied to
// --out only by the replica that takes the turn to report once the
// search is done (launch.Plan.TakeReport), so that the tree survives
// whichever replicas die, and is written once.

import (
	"fmt"
	"io"
	"os"

	"github.com/graphrun/graphrun/internal/output"
)

// treeSink receives the tree's chunks on the processes that may report.
// A nil *treeSink takes nothing.
type treeSink struct {
	out   *output.File // --out
	spool *os.File     // a replica's unnamed spool file; nil: straight into out
}

// newTreeSink returns the sink of the tree written to out (nil without
// --out, and on the processes that do not report).
func newTreeSink(out *output.File, plan jobPlan) (*treeSink, error) {
	if out == nil {
		return nil, nil
	}
	if plan.Replication() <= 1 || !plan.MultiProcess() {
		return &treeSink{out: out}, nil
	}
	spool, err := os.CreateTemp("", "graphrun-tree-*")
	if err != nil {
		return nil, fmt.Errorf("--out: a spool file for the tree: %w", err)
	}
	_ = os.Remove(spool.Name()) // unnamed: gone with the process, however it ends
	return &treeSink{out: out, spool: spool}, nil
}

// write takes one chunk of the tree.
func (t *treeSink) write(chunk []byte) error {
	switch {
	case t == nil:
		return nil
	case t.spool != nil:
		_, err := t.spool.Write(chunk)
		return err
	}
	_, err := t.out.Write(chunk)
	return err
}

// commit completes --out: from the spool, if any.
func (t *treeSink) commit() error {
	if t == nil {
		return nil
	}
	if t.spool != nil {
		if _, err := t.spool.Seek(0, io.SeekStart); err != nil {
			return fmt.Errorf("--out: reading the tree back: %w", err)
		}
		return t.out.WriteAll(func(w io.Writer) error {
			_, err := io.Copy(w, t.spool)
			return err
		})
	}
	return t.out.Commit()
}

// close gives up what was not committed (a replica that did not report).
func (t *treeSink) close() {
	if t == nil {
		return
	}
	if t.spool != nil {
		_ = t.spool.Close()
	}
	t.out.Abort()
}
