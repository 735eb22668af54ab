package launch

import (
	"strings"
	"testing"
)

// planFlags are a command line's settings with nothing given.
func planFlags() PlanFlags {
	f := PlanFlags{Flags: flags(), Ranks: 1}
	f.Replicas = 1
	return f
}

// TestPlanMPI: under Open MPI's mpirun, --transport mpi takes rank, size
// and the ranks on this machine from the launcher's variables.
func TestPlanMPI(t *testing.T) {
	if !MPIBuilt {
		t.Skip("graphrun built without the MPI backend (-tags mpi)")
	}
	f := planFlags()
	f.Transport = MPI
	plan, err := NewPlan(f, MapLookup(map[string]string{"OMPI_COMM_WORLD_RANK": "3", "OMPI_COMM_WORLD_SIZE": "4", "OMPI_COMM_WORLD_LOCAL_SIZE": "2"}))
	if err != nil {
		t.Fatal(err)
	}
	if !plan.MPI() || !plan.MultiProcess() || plan.TCP() || plan.Rank() != 3 || plan.TotalRanks() != 4 || plan.LocalRanks() != 2 {
		t.Fatalf("plan %+v: mpi %v, rank %d, total %d, local %d", plan, plan.MPI(), plan.Rank(), plan.TotalRanks(), plan.LocalRanks())
	}
}

// TestPlanMPIByDefault (issue 19): without --transport, a process started
// by an MPI launcher (Open MPI's mpirun, MPICH's Hydra, srun) is one rank
// of an MPI job in a graphrun with the MPI backend, and of a TCP job
// without it; --transport tcp, the TCP job's flags and a Kubernetes
// Indexed Job still make a TCP job.
func TestPlanMPIByDefault(t *testing.T) {
	cases := []struct {
		name    string
		env     map[string]string
		set     func(*PlanFlags)
		wantMPI bool // with the MPI backend; without it every case is TCP
	}{
		{"Open MPI", map[string]string{"OMPI_COMM_WORLD_RANK": "1", "OMPI_COMM_WORLD_SIZE": "2"}, nil, true},
		{"MPICH", map[string]string{"PMI_RANK": "1", "PMI_SIZE": "2", "MPI_LOCALNRANKS": "2"}, nil, true},
		{"srun", map[string]string{"SLURM_PROCID": "1", "SLURM_NTASKS": "2"}, nil, true},
		{"Open MPI, --transport tcp", map[string]string{"OMPI_COMM_WORLD_RANK": "1", "OMPI_COMM_WORLD_SIZE": "2"}, func(f *PlanFlags) { f.Transport = TCP }, false},
		{"MPICH, --coordinator", map[string]string{"PMI_RANK": "1", "PMI_SIZE": "2"}, func(f *PlanFlags) { f.Coordinator, f.HasCoordinator = "127.0.0.1:1", true }, false},
		{"Kubernetes", map[string]string{"JOB_COMPLETION_INDEX": "1", EnvSize: "2"}, nil, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			env := map[string]string{EnvCoordinator: "127.0.0.1:1", EnvToken: "0123456789abcdef0123456789abcdef"}
			for k, v := range tc.env {
				env[k] = v
			}
			f := planFlags()
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

// TestPlanProcs: --procs makes a launcher's plan, refuses the flags it sets
// itself and a launcher's environment, and every error names its flag.
func TestPlanProcs(t *testing.T) {
	f := planFlags()
	f.Procs, f.HasProcs, f.Replicas = 3, true, 2
	plan, err := NewPlan(f, MapLookup(nil))
	if err != nil {
		t.Fatal(err)
	}
	if plan.MultiProcess() || !plan.Reports() || plan.TotalRanks() != 3 || plan.LocalRanks() != 6 || plan.Replication() != 2 {
		t.Fatalf("plan %+v: total %d, local %d, replication %d", plan, plan.TotalRanks(), plan.LocalRanks(), plan.Replication())
	}
	for _, c := range []struct {
		name string
		set  func(*PlanFlags)
		env  map[string]string
		want string
	}{
		{"zero", func(f *PlanFlags) { f.Procs = 0 }, nil, "--procs: 0 is less than 1"},
		{"ranks", func(f *PlanFlags) { f.Ranks, f.HasRanks = 2, true }, nil, "--procs: cannot be combined with --ranks 2"},
		{"inproc", func(f *PlanFlags) { f.Transport = InProc }, nil, "--procs: cannot be combined with --transport inproc"},
		{"listen", func(f *PlanFlags) { f.HasListen = true }, nil, "--listen: cannot be combined with --procs"},
		{"launcher", nil, map[string]string{"SLURM_PROCID": "0", "SLURM_NTASKS": "2"}, "--procs: cannot be used inside a Slurm job (SLURM_PROCID is set)"},
		{"replicas", func(f *PlanFlags) { f.Replicas = 0 }, nil, "--replicas: 0 is less than 1"},
		{"transport", func(f *PlanFlags) { f.HasProcs, f.Transport = false, "udp" }, nil, `--transport: unknown transport "udp" (want inproc, tcp or mpi)`},
	} {
		f := planFlags()
		f.Procs, f.HasProcs = 2, true
		if c.set != nil {
			c.set(&f)
		}
		if _, err := NewPlan(f, MapLookup(c.env)); err == nil || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.name, err, c.want)
		}
	}
}

// TestPlanInProcess: without a launcher the ranks are in-process, and a
// rank started by --procs (EnvLocal) keeps its set-up quiet unless
// --verbose.
func TestPlanInProcess(t *testing.T) {
	f := planFlags()
	f.Ranks, f.HasRanks = 4, true
	plan, err := NewPlan(f, MapLookup(nil))
	if err != nil || plan.MultiProcess() || plan.TotalRanks() != 4 || plan.LocalRanks() != 4 || plan.Rank() != 0 {
		t.Fatalf("plan %+v, %v", plan, err)
	}
	env := map[string]string{EnvCoordinator: "127.0.0.1:1", EnvToken: "0123456789abcdef0123456789abcdef", EnvLocal: "1"}
	f = planFlags()
	f.Rank, f.HasRank, f.Size, f.HasSize = 1, true, 2, true
	for _, verbose := range []bool{false, true} {
		f.Verbose = verbose
		plan, err := NewPlan(f, MapLookup(env))
		if err != nil || !plan.TCP() || plan.Job.QuietSetup == verbose {
			t.Fatalf("verbose %v: plan %+v, %v", verbose, plan, err)
		}
	}
}

// TestJoinPlan: a joining process needs the job's token, takes its
// coordinator from the flags or the environment, and reports nothing.
func TestJoinPlan(t *testing.T) {
	if _, err := JoinPlan(flags(), MapLookup(map[string]string{EnvCoordinator: "127.0.0.1:1"})); err == nil || !strings.HasPrefix(err.Error(), EnvToken+": not set") {
		t.Fatalf("no token: %v", err)
	}
	if _, err := JoinPlan(flags(), MapLookup(map[string]string{EnvToken: testToken})); err == nil || !strings.HasPrefix(err.Error(), "--join: ") {
		t.Fatalf("no coordinator: %v", err)
	}
	plan, err := JoinPlan(flags(), MapLookup(tcpEnv(nil)))
	if err != nil || !plan.TCP() || plan.Reports() || plan.Job.Source != "--join" || plan.Job.Coordinator != "10.0.0.1:7000" {
		t.Fatalf("plan %+v, %v", plan, err)
	}
}
