package netemu

import (
	"context"
	"sync"
	"testing"
	"time"
)

// chanPort is a Port over channels: in is what arrives, out what the
// switch sends, with the time it was sent.
type chanPort struct {
	in  chan []byte
	mu  sync.Mutex
	out []sent
}

type sent struct {
	data []byte
	at   time.Time
}

func newChanPort() *chanPort { return &chanPort{in: make(chan []byte, 16)} }

func (p *chanPort) Read(buf []byte) (int, error) {
	select {
	case f := <-p.in:
		return copy(buf, f), nil
	case <-time.After(10 * time.Millisecond):
		return 0, ErrTimeout
	}
}

func (p *chanPort) Write(frame []byte) error {
	p.mu.Lock()
	p.out = append(p.out, sent{append([]byte(nil), frame...), time.Now()})
	p.mu.Unlock()
	return nil
}

func (p *chanPort) frames() []sent {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]sent(nil), p.out...)
}

// ethFrame is a frame from MAC ...:src to MAC ...:dst (0xff: broadcast).
func ethFrame(dst, src byte, payload string) []byte {
	f := make([]byte, 14, 14+len(payload))
	for i := range 6 {
		f[i] = dst
		if dst != 0xff {
			f[i] = 0x02
		}
		f[6+i] = 0x02
	}
	f[5], f[11] = dst, src
	return append(f, payload...)
}

// waitFrames waits until port p has sent n frames.
func waitFrames(t *testing.T, p *chanPort, n int) []sent {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		if got := p.frames(); len(got) >= n {
			return got
		}
		time.Sleep(time.Millisecond)
	}
	t.Fatalf("port sent %d frames, want %d", len(p.frames()), n)
	return nil
}

// TestSwitchLearnsFloodsAndDelays: a frame to an unknown address goes out
// of every other port, a reply to a learnt address only out of its port,
// and none leaves before the delay.
func TestSwitchLearnsFloodsAndDelays(t *testing.T) {
	const delay = 30 * time.Millisecond
	ports := []*chanPort{newChanPort(), newChanPort(), newChanPort()}
	s, err := New(delay, 0, []Port{ports[0], ports[1], ports[2]})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Run(ctx) }()

	start := time.Now()
	ports[0].in <- ethFrame(0xff, 1, "who has 2") // broadcast from host 1 on port 0
	for _, p := range ports[1:] {
		got := waitFrames(t, p, 1)
		if string(got[0].data[14:]) != "who has 2" {
			t.Errorf("flooded frame payload %q", got[0].data[14:])
		}
		if held := got[0].at.Sub(start); held < delay {
			t.Errorf("frame left after %v, before the delay %v", held, delay)
		}
	}
	ports[1].in <- ethFrame(1, 2, "2 is here") // host 2 on port 1 answers host 1
	got := waitFrames(t, ports[0], 1)
	if string(got[0].data[14:]) != "2 is here" {
		t.Errorf("unicast payload %q", got[0].data[14:])
	}
	ports[0].in <- ethFrame(2, 1, "data") // host 2 is now known behind port 1
	waitFrames(t, ports[1], 2)
	time.Sleep(2 * delay)
	if n := len(ports[2].frames()); n != 1 {
		t.Errorf("port 2 sent %d frames, want only the broadcast", n)
	}
	st := s.Stats()
	if st.Frames != 4 || st.MinHold < delay || st.MeanHold < st.MinHold || st.MaxHold < st.MeanHold || st.Dropped != 0 {
		t.Errorf("stats %+v, want 4 frames held at least %v, none dropped", st, delay)
	}
	cancel()
	if err := <-done; err != nil {
		t.Errorf("Run after cancel: %v", err)
	}
}

func TestNewChecks(t *testing.T) {
	p := newChanPort()
	if _, err := New(-time.Millisecond, 0, []Port{p, p}); err == nil {
		t.Error("negative delay accepted")
	}
	if _, err := New(time.Millisecond, 0, []Port{p}); err == nil {
		t.Error("one port accepted")
	}
	if _, err := New(time.Millisecond, -1, []Port{p, p}); err == nil {
		t.Error("negative header accepted")
	}
}
