package comm

import "sort"

// PhaseCounters is the communication volume of one rank in one phase.
// Bytes to and from the rank itself are not counted: they never cross a link.
type PhaseCounters struct {
	Calls     int64 `json:"calls"`      // collective calls made in this phase
	BytesSent int64 `json:"bytes_sent"` // payload bytes sent to other ranks
	BytesRecv int64 `json:"bytes_recv"` // payload bytes received from other ranks
	Messages  int64 `json:"messages"`   // point-to-point messages sent to other ranks
}

// Add accumulates o into c.
func (c *PhaseCounters) Add(o PhaseCounters) {
	c.Calls += o.Calls
	c.BytesSent += o.BytesSent
	c.BytesRecv += o.BytesRecv
	c.Messages += o.Messages
}

// Sub returns c - o (used to diff two snapshots).
func (c PhaseCounters) Sub(o PhaseCounters) PhaseCounters {
	return PhaseCounters{c.Calls - o.Calls, c.BytesSent - o.BytesSent, c.BytesRecv - o.BytesRecv, c.Messages - o.Messages}
}

// Stats holds a rank's counters per named phase. The zero value is ready to use.
// Backends call Record once per collective call, never per byte.
type Stats struct {
	phases map[string]*PhaseCounters
	total  PhaseCounters
}

// Record adds one call's volume to phase.
func (s *Stats) Record(phase string, sent, recv, messages int64) {
	if s.phases == nil {
		s.phases = make(map[string]*PhaseCounters)
	}
	p := s.phases[phase]
	if p == nil {
		p = new(PhaseCounters)
		s.phases[phase] = p
	}
	d := PhaseCounters{Calls: 1, BytesSent: sent, BytesRecv: recv, Messages: messages}
	p.Add(d)
	s.total.Add(d)
}

// Phase returns the counters of one phase (zero if never used).
func (s *Stats) Phase(phase string) PhaseCounters {
	if p := s.phases[phase]; p != nil {
		return *p
	}
	return PhaseCounters{}
}

// Total returns the counters summed over every phase.
func (s *Stats) Total() PhaseCounters { return s.total }

// Phases returns the names of the phases used so far, sorted.
func (s *Stats) Phases() []string {
	names := make([]string, 0, len(s.phases))
	for n := range s.phases {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// Snapshot returns a copy of every phase's counters.
func (s *Stats) Snapshot() map[string]PhaseCounters {
	out := make(map[string]PhaseCounters, len(s.phases))
	for n, p := range s.phases {
		out[n] = *p
	}
	return out
}
