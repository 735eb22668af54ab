package launch

import (
	"strings"
	"testing"
	"time"
)

// planConfig is a configuration with nothing set: the defaults.
func planConfig() Config {
	f := config()
	f.Ranks, f.Replicas = 1, 1
	return f
}

// TestPlanMPI: under Open MPI's mpirun, Transport MPI takes rank, size
// and the ranks on this machine from the launcher's variables.
func TestPlanMPI(t *testing.T) {
	if !MPIBuilt {
		t.Skip("graphrun built without the MPI backend (-tags mpi)")
	}
	f := planConfig()
	f.Transport = MPI
	plan, err := NewPlan(f, MapLookup(map[string]string{"OMPI_COMM_WORLD_RANK": "3", "OMPI_COMM_WORLD_SIZE": "4", "OMPI_COMM_WORLD_LOCAL_SIZE": "2"}))
	if err != nil {
		t.Fatal(err)
	}
	if !plan.MPI() || !plan.MultiProcess() || plan.TCP() || plan.Rank() != 3 || plan.TotalRanks() != 4 || plan.LocalRanks() != 2 {
		t.Fatalf("plan %+v: mpi %v, rank %d, total %d, local %d", plan, plan.MPI(), plan.Rank(), plan.TotalRanks(), plan.LocalRanks())
	}
}

// TestPlanMPIByDefault: without a Transport, a process started
// by an MPI launcher (Open MPI's mpirun, MPICH's Hydra, srun) is one rank
// of an MPI job in a graphrun with the MPI backend, and of a TCP job
// without it; Transport TCP, the TCP job's fields and a Kubernetes
// Indexed Job still make a TCP job.
func TestPlanMPIByDefault(t *testing.T) {
	cases := []struct {
		name    string
		env     map[string]string
		set     func(*Config)
		wantMPI bool // with the MPI backend; without it every case is TCP
	}{
		{"Open MPI", map[string]string{"OMPI_COMM_WORLD_RANK": "1", "OMPI_COMM_WORLD_SIZE": "2"}, nil, true},
		{"MPICH", map[string]string{"PMI_RANK": "1", "PMI_SIZE": "2", "MPI_LOCALNRANKS": "2"}, nil, true},
		{"srun", map[string]string{"SLURM_PROCID": "1", "SLURM_NTASKS": "2"}, nil, true},
		{"Open MPI, Transport tcp", map[string]string{"OMPI_COMM_WORLD_RANK": "1", "OMPI_COMM_WORLD_SIZE": "2"}, func(f *Config) { f.Transport = TCP }, false},
		{"MPICH, Coordinator", map[string]string{"PMI_RANK": "1", "PMI_SIZE": "2"}, func(f *Config) { f.Coordinator, f.CoordinatorSet = "127.0.0.1:1", true }, false},
		{"Kubernetes", map[string]string{"JOB_COMPLETION_INDEX": "1", EnvSize: "2"}, nil, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			env := map[string]string{EnvCoordinator: "127.0.0.1:1", EnvToken: "0123456789abcdef0123456789abcdef"}
			for k, v := range tc.env {
				env[k] = v
			}
			f := planConfig()
			if tc.set != nil {
				tc.set(&f)
			}
			plan, err := NewPlan(f, MapLookup(env))
			if err != nil {
				t.Fatal(err)
			}
			wantMPI := tc.wantMPI && MPIBuilt
			if plan.MPI() != wantMPI || plan.TCP() == wantMPI || plan.Rank() != 1 || plan.TotalRanks() != 2 {
				t.Fatalf("plan %+v: mpi %v, tcp %v, rank %d of %d; want mpi %v, rank 1 of 2", plan, plan.MPI(), plan.TCP(), plan.Rank(), plan.TotalRanks(), wantMPI)
			}
		})
	}
}

// TestPlanProcs: Procs makes a launcher's plan, refuses the fields it sets
// itself and a launcher's environment, and every error names its field.
func TestPlanProcs(t *testing.T) {
	f := planConfig()
	f.Procs, f.ProcsSet, f.Replicas = 3, true, 2
	plan, err := NewPlan(f, MapLookup(nil))
	if err != nil {
		t.Fatal(err)
	}
	if plan.MultiProcess() || !plan.Reports() || plan.TotalRanks() != 3 || plan.LocalRanks() != 6 || plan.Replication() != 2 {
		t.Fatalf("plan %+v: total %d, local %d, replication %d", plan, plan.TotalRanks(), plan.LocalRanks(), plan.Replication())
	}
	for _, c := range []struct {
		name string
		set  func(*Config)
		env  map[string]string
		want string
	}{
		{"zero", func(f *Config) { f.Procs = 0 }, nil, "Procs: 0 is less than 1"},
		{"ranks", func(f *Config) { f.Ranks, f.RanksSet = 2, true }, nil, "Procs: cannot be combined with Ranks 2"},
		{"inproc", func(f *Config) { f.Transport = InProc }, nil, "Procs: cannot be combined with Transport inproc"},
		{"listen", func(f *Config) { f.ListenSet = true }, nil, "Listen: cannot be combined with Procs"},
		{"launcher", nil, map[string]string{"SLURM_PROCID": "0", "SLURM_NTASKS": "2"}, "Procs: cannot be used inside a Slurm job (SLURM_PROCID is set)"},
		{"replicas", func(f *Config) { f.Replicas = 0 }, nil, "Replicas: 0 is less than 1"},
		{"transport", func(f *Config) { f.ProcsSet, f.Transport = false, "udp" }, nil, `Transport: unknown transport "udp" (want inproc, tcp or mpi)`},
	} {
		f := planConfig()
		f.Procs, f.ProcsSet = 2, true
		if c.set != nil {
			c.set(&f)
		}
		if _, err := NewPlan(f, MapLookup(c.env)); err == nil || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.name, err, c.want)
		}
	}
}

// TestPlanInProcess: without a launcher the ranks are in-process, and a
// rank started by a Procs launch (EnvLocal) keeps its set-up quiet
// unless Verbose.
func TestPlanInProcess(t *testing.T) {
	f := planConfig()
	f.Ranks, f.RanksSet = 4, true
	plan, err := NewPlan(f, MapLookup(nil))
	if err != nil || plan.MultiProcess() || plan.TotalRanks() != 4 || plan.LocalRanks() != 4 || plan.Rank() != 0 {
		t.Fatalf("plan %+v, %v", plan, err)
	}
	env := map[string]string{EnvCoordinator: "127.0.0.1:1", EnvToken: "0123456789abcdef0123456789abcdef", EnvLocal: "1"}
	f = planConfig()
	f.Rank, f.RankSet, f.Size, f.SizeSet = 1, true, 2, true
	for _, verbose := range []bool{false, true} {
		f.Verbose = verbose
		plan, err := NewPlan(f, MapLookup(env))
		if err != nil || !plan.TCP() || plan.Job.QuietSetup == verbose {
			t.Fatalf("verbose %v: plan %+v, %v", verbose, plan, err)
		}
	}
}

// TestJoinPlan: a joining process needs the job's token, takes its
// coordinator from the configuration or the environment, and reports
// nothing.
func TestJoinPlan(t *testing.T) {
	if _, err := JoinPlan(config(), MapLookup(map[string]string{EnvCoordinator: "127.0.0.1:1"})); err == nil || !strings.HasPrefix(err.Error(), EnvToken+": not set") {
		t.Fatalf("no token: %v", err)
	}
	if _, err := JoinPlan(config(), MapLookup(map[string]string{EnvToken: testToken})); err == nil || !strings.HasPrefix(err.Error(), "Join: Coordinator: missing") {
		t.Fatalf("no coordinator: %v", err)
	}
	plan, err := JoinPlan(config(), MapLookup(tcpEnv(nil)))
	if err != nil || !plan.TCP() || plan.Reports() || plan.Job.Source != SourceJoin || plan.Job.Coordinator != "10.0.0.1:7000" {
		t.Fatalf("plan %+v, %v", plan, err)
	}
}

// TestPlanBoundsSizes: a job size, a process count or a replication
// factor too large to allocate for is refused naming its own field or
// variable, before anything is sized by it.
func TestPlanBoundsSizes(t *testing.T) {
	noEnv := func(string) (string, bool) { return "", false }
	for _, c := range []struct {
		cfg  Config
		env  Lookup
		want string
	}{
		{Config{Procs: 100000, ProcsSet: true, PeerTimeout: time.Second, Replicas: 1}, noEnv, "Procs: 100000 is more than"},
		{Config{Procs: 2, ProcsSet: true, PeerTimeout: time.Second, Replicas: 100000}, noEnv, "Replicas: 100000 is more than"},
		{Config{Procs: 600, ProcsSet: true, PeerTimeout: time.Second, Replicas: 2}, noEnv, "Procs: 600 ranks of 2 replicas"},
		{Config{Transport: TCP, Rank: 0, RankSet: true, Size: 1000000000, SizeSet: true, PeerTimeout: time.Second}, noEnv, "Size: 1000000000 processes, more than"},
		{Config{PeerTimeout: time.Second}, func(k string) (string, bool) {
			switch k {
			case "OMPI_COMM_WORLD_SIZE":
				return "1000000000", true
			case "OMPI_COMM_WORLD_RANK":
				return "0", true
			}
			return "", false
		}, "OMPI_COMM_WORLD_SIZE"},
	} {
		_, err := NewPlan(c.cfg, c.env)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want an error with %q", c.cfg, err, c.want)
		}
	}
}
