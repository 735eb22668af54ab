package results

import (
	"math"
	"testing"
)

func TestParseClusterModel(t *testing.T) {
	m, err := ParseClusterModel("bw=10Gbit/s, lat=50us,min-packet=5MB")
	if err != nil {
		t.Fatal(err)
	}
	if m.Bandwidth != 1.25e9 || math.Abs(m.Latency-50e-6) > 1e-15 || m.MinPacket != 5e6 {
		t.Fatalf("parsed %+v", m)
	}
	if m, err := ParseClusterModel("lat=1ms,bw=100MB/s"); err != nil || m.Bandwidth != 1e8 || m.Latency != 1e-3 || m.MinPacket != 0 {
		t.Fatalf("parsed %+v, %v", m, err)
	}
	// The unit syntax of every flag: Mi is 2^20, k is 10^3.
	if m, err := ParseClusterModel("bw=125MiB/s,lat=1us,min-packet=64kB"); err != nil || m.Bandwidth != 125<<20 || m.MinPacket != 64e3 {
		t.Fatalf("parsed %+v, %v", m, err)
	}
	for _, bad := range []string{"", "bw=10Gbit/s", "lat=5us", "bw=10,lat=5us", "bw=1GB/s,lat=1s,min-packet=5M", "bw=-1GB/s,lat=1s", "bw=0GB/s,lat=1s",
		"bw=1GB/s,lat=1s,speed=3", "bw=1GB/s;lat=1s", "bw=xGB/s,lat=1s"} {
		if _, err := ParseClusterModel(bad); err == nil {
			t.Errorf("ParseClusterModel(%q) accepted", bad)
		}
	}
}

func TestClusterModelLevelTime(t *testing.T) {
	m := ClusterModel{Bandwidth: 1e9, Latency: 1e-5}
	// 4 ranks, 12 messages of 1 MB: each rank sends 3 × (10 µs + 1 ms).
	if got, want := m.LevelTime(4, 12, 12e6, 1), 3*(1e-5+1e-3); math.Abs(got-want) > 1e-12 {
		t.Fatalf("LevelTime = %g, want %g", got, want)
	}
	// A minimum packet of 5 MB charges each 1 MB message as 5 MB; imbalance scales.
	m.MinPacket = 5e6
	if got, want := m.LevelTime(4, 12, 12e6, 2), 2*3*(1e-5+5e-3); math.Abs(got-want) > 1e-12 {
		t.Fatalf("LevelTime with min packet = %g, want %g", got, want)
	}
	if m.LevelTime(4, 0, 0, 1) != 0 {
		t.Fatal("a level with no message costs time")
	}
	r := syntheticRun()
	for _, s := range r.Searches {
		for l := range s.Levels {
			s.Levels[l].Traverse, s.Levels[l].Compress = 4e-5, 1e-5
		}
	}
	searches := m.Model(r, 1)
	if len(searches) != len(r.Searches) || searches[0].Communication <= 0 || searches[0].Compute <= 0 {
		t.Fatalf("modelled %+v", searches[0])
	}
	hm := HarmonicTEPS(searches)
	if !(hm > 0) || hm > searches[0].TEPS()*10 {
		t.Fatalf("harmonic TEPS %g", hm)
	}
}
