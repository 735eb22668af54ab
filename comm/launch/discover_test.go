package launch

import (
	"bytes"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/graphrun/graphrun/internal/fielderr"
)

const testToken = "00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff"

func tcpEnv(extra map[string]string) map[string]string {
	env := map[string]string{EnvCoordinator: "10.0.0.1:7000", EnvToken: testToken}
	for k, v := range extra {
		env[k] = v
	}
	return env
}

func config() Config { return Config{PeerTimeout: DefaultPeerTimeout} }

func TestDiscoverLaunchers(t *testing.T) {
	cases := []struct {
		name             string
		env              map[string]string
		rank, size, loc  int
		source, transprt string
	}{
		{"nothing: in-process", map[string]string{}, 0, 0, 0, SourceConfig, InProc},
		{"Open MPI", tcpEnv(map[string]string{"OMPI_COMM_WORLD_RANK": "2", "OMPI_COMM_WORLD_SIZE": "4", "OMPI_COMM_WORLD_LOCAL_SIZE": "2"}), 2, 4, 2, "Open MPI", TCP},
		{"MPICH", tcpEnv(map[string]string{"PMI_RANK": "1", "PMI_SIZE": "3"}), 1, 3, 1, "MPICH/Intel MPI (PMI)", TCP},
		{"Intel MPI with local size", tcpEnv(map[string]string{"PMI_RANK": "0", "PMI_SIZE": "8", "MPI_LOCALNRANKS": "4"}), 0, 8, 4, "MPICH/Intel MPI (PMI)", TCP},
		{"Slurm", tcpEnv(map[string]string{"SLURM_PROCID": "5", "SLURM_NTASKS": "6"}), 5, 6, 1, "Slurm", TCP},
		{"Kubernetes", tcpEnv(map[string]string{"JOB_COMPLETION_INDEX": "3", EnvSize: "4"}), 3, 4, 1, "Kubernetes Indexed Job", TCP},
		{"Open MPI wins over Slurm (mpirun inside an allocation)", tcpEnv(map[string]string{
			"OMPI_COMM_WORLD_RANK": "1", "OMPI_COMM_WORLD_SIZE": "2", "SLURM_PROCID": "0", "SLURM_NTASKS": "1"}), 1, 2, 1, "Open MPI", TCP},
		{"PMI wins over Slurm", tcpEnv(map[string]string{"PMI_RANK": "1", "PMI_SIZE": "2", "SLURM_PROCID": "0", "SLURM_NTASKS": "7"}), 1, 2, 1, "MPICH/Intel MPI (PMI)", TCP},
		{"single task under srun: in-process", map[string]string{"SLURM_PROCID": "0", "SLURM_NTASKS": "1"}, 0, 0, 0, "Slurm", InProc},
		{"white space is trimmed", tcpEnv(map[string]string{"SLURM_PROCID": " 1 ", "SLURM_NTASKS": "2\n"}), 1, 2, 1, "Slurm", TCP},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			job, err := Discover(config(), MapLookup(tc.env))
			if err != nil {
				t.Fatal(err)
			}
			if job.Transport != tc.transprt || job.Source != tc.source {
				t.Fatalf("transport %q source %q, want %q %q", job.Transport, job.Source, tc.transprt, tc.source)
			}
			if job.Transport == InProc {
				return
			}
			if job.Rank != tc.rank || job.Size != tc.size || job.LocalSize != tc.loc {
				t.Fatalf("rank %d size %d local %d, want %d %d %d", job.Rank, job.Size, job.LocalSize, tc.rank, tc.size, tc.loc)
			}
			if job.Coordinator != "10.0.0.1:7000" || len(job.Token) != 32 || job.JobID != DefaultJobID(job.Token) || job.PeerTimeout != DefaultPeerTimeout {
				t.Fatalf("network settings %+v", job)
			}
			cfg, err := job.TCPConfig(nil)
			if err != nil || cfg.Rank != tc.rank || cfg.Size != tc.size || cfg.Coordinator != job.Coordinator || !bytes.Equal(cfg.Token, job.Token) || cfg.JobID != job.JobID {
				t.Fatalf("TCPConfig %+v, %v", cfg, err)
			}
		})
	}
}

func TestDiscoverConfig(t *testing.T) {
	f := config()
	f.Rank, f.RankSet, f.Size, f.SizeSet = 1, true, 2, true
	f.Coordinator, f.Listen, f.PeerTimeout = "node0:9000", "10.1.2.3", 5*time.Second
	env := tcpEnv(map[string]string{"OMPI_COMM_WORLD_RANK": "0", "OMPI_COMM_WORLD_SIZE": "8", EnvJob: "my-job"})
	job, err := Discover(f, MapLookup(env))
	if err != nil {
		t.Fatal(err)
	}
	want := Job{Transport: TCP, Rank: 1, Size: 2, LocalSize: 1, Source: SourceConfig, Coordinator: "node0:9000",
		Listen: "10.1.2.3:0", JobID: "my-job", PeerTimeout: 5 * time.Second}
	job.Token = nil
	if job.Rank != want.Rank || job.Size != want.Size || job.Source != want.Source || job.Coordinator != want.Coordinator ||
		job.Listen != want.Listen || job.JobID != want.JobID || job.PeerTimeout != want.PeerTimeout || job.Transport != TCP {
		t.Fatalf("got %+v\nwant %+v", job, want)
	}

	// Rank alone takes the size from the launcher.
	f = config()
	f.Rank, f.RankSet = 3, true
	job, err = Discover(f, MapLookup(tcpEnv(map[string]string{"JOB_COMPLETION_INDEX": "0", EnvSize: "4"})))
	if err != nil || job.Rank != 3 || job.Size != 4 {
		t.Fatalf("rank %d size %d, %v", job.Rank, job.Size, err)
	}

	// An explicit Transport tcp with one process.
	f = config()
	f.Transport, f.Rank, f.RankSet, f.Size, f.SizeSet = TCP, 0, true, 1, true
	if job, err = Discover(f, MapLookup(tcpEnv(nil))); err != nil || job.Transport != TCP || job.Size != 1 {
		t.Fatalf("%+v, %v", job, err)
	}

	// An explicit Transport inproc ignores a launcher's variables.
	f = config()
	f.Transport = InProc
	if job, err = Discover(f, MapLookup(map[string]string{"JOB_COMPLETION_INDEX": "2"})); err != nil || job.Transport != InProc {
		t.Fatalf("%+v, %v", job, err)
	}

	// IPv6 listen addresses.
	f = config()
	f.Rank, f.RankSet, f.Size, f.SizeSet, f.Listen = 0, true, 2, true, "::1"
	if job, err = Discover(f, MapLookup(tcpEnv(nil))); err != nil || job.Listen != "[::1]:0" {
		t.Fatalf("%+v, %v", job, err)
	}
}

func TestDiscoverErrorsNameTheSetting(t *testing.T) {
	type edit func(f *Config, env map[string]string)
	rankSize := func(f *Config, _ map[string]string) { f.Rank, f.RankSet, f.Size, f.SizeSet = 0, true, 2, true }
	cases := []struct {
		name, want, msg string
		edit            edit
	}{
		{"unknown transport", "Transport", "unknown transport", func(f *Config, _ map[string]string) { f.Transport = "mpi" }},
		{"tcp without ranks", "Transport", "Procs", func(f *Config, env map[string]string) { f.Transport = TCP }},
		{"rank with inproc", "Rank", "Transport tcp", func(f *Config, _ map[string]string) { f.Transport, f.RankSet = InProc, true }},
		{"listen with inproc", "Listen", "Transport tcp", func(f *Config, _ map[string]string) { f.Transport, f.Listen = InProc, "1.2.3.4" }},
		{"coordinator for one process", "Coordinator", "several processes", func(f *Config, _ map[string]string) { f.Coordinator = "h:1" }},
		{"rank without size", "Size", "missing", func(f *Config, _ map[string]string) { f.RankSet = true }},
		{"size without rank", "Rank", "missing", func(f *Config, _ map[string]string) { f.Size, f.SizeSet = 2, true }},
		{"bad peer timeout", "PeerTimeout", "positive", func(f *Config, _ map[string]string) { f.PeerTimeout = 0 }},
		{"rank out of range", "Rank", "outside [0, 2)", func(f *Config, env map[string]string) { rankSize(f, env); f.Rank = 2 }},
		{"negative rank", "Rank", "outside", func(f *Config, env map[string]string) { rankSize(f, env); f.Rank = -1 }},
		{"zero size", "Size", "at least 1", func(f *Config, env map[string]string) { rankSize(f, env); f.Size = 0 }},
		{"bad OMPI rank", "OMPI_COMM_WORLD_RANK", "not an integer", func(_ *Config, env map[string]string) {
			env["OMPI_COMM_WORLD_RANK"], env["OMPI_COMM_WORLD_SIZE"] = "x", "2"
		}},
		{"missing OMPI size", "OMPI_COMM_WORLD_SIZE", "not set", func(_ *Config, env map[string]string) { env["OMPI_COMM_WORLD_RANK"] = "1" }},
		{"OMPI size only", "OMPI_COMM_WORLD_RANK", "not set", func(_ *Config, env map[string]string) { env["OMPI_COMM_WORLD_SIZE"] = "2" }},
		{"PMI rank too big", "PMI_RANK", "outside [0, 2)", func(_ *Config, env map[string]string) { env["PMI_RANK"], env["PMI_SIZE"] = "2", "2" }},
		{"bad local size", "OMPI_COMM_WORLD_LOCAL_SIZE", "outside", func(_ *Config, env map[string]string) {
			env["OMPI_COMM_WORLD_RANK"], env["OMPI_COMM_WORLD_SIZE"], env["OMPI_COMM_WORLD_LOCAL_SIZE"] = "0", "2", "3"
		}},
		{"bad Slurm size", "SLURM_NTASKS", "at least 1", func(_ *Config, env map[string]string) { env["SLURM_PROCID"], env["SLURM_NTASKS"] = "0", "0" }},
		{"Kubernetes without size", EnvSize, "completions", func(_ *Config, env map[string]string) { env["JOB_COMPLETION_INDEX"] = "1" }},
		{"no coordinator", "Coordinator", EnvCoordinator, func(f *Config, env map[string]string) { rankSize(f, env); delete(env, EnvCoordinator) }},
		{"bad coordinator variable", EnvCoordinator, "host:port", func(f *Config, env map[string]string) { rankSize(f, env); env[EnvCoordinator] = "node0" }},
		{"coordinator without host", "Coordinator", "no host", func(f *Config, env map[string]string) { rankSize(f, env); f.Coordinator = ":7000" }},
		{"coordinator port 0", "Coordinator", "1..65535", func(f *Config, env map[string]string) { rankSize(f, env); f.Coordinator = "h:0" }},
		{"bad listen port", "Listen", "1..65535", func(f *Config, env map[string]string) { rankSize(f, env); f.Listen = "h:http" }},
		{"no token", EnvToken, "not set", func(f *Config, env map[string]string) { rankSize(f, env); delete(env, EnvToken) }},
		{"empty token", EnvToken, "not set", func(f *Config, env map[string]string) { rankSize(f, env); env[EnvToken] = " " }},
		{"short token", EnvToken, "too short", func(f *Config, env map[string]string) { rankSize(f, env); env[EnvToken] = "abcdef" }},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f, env := config(), tcpEnv(nil)
			tc.edit(&f, env)
			_, err := Discover(f, MapLookup(env))
			name := settingOf(err)
			if name != tc.want || !strings.HasPrefix(err.Error(), tc.want+": ") || !strings.Contains(err.Error(), tc.msg) {
				t.Fatalf("error %q names %q, want %q mentioning %q", err, name, tc.want, tc.msg)
			}
		})
	}
}

// settingOf is the setting err names: the field of a fielderr.Error, the
// variable of an *Error, or "".
func settingOf(err error) string {
	if fe, ok := fielderr.As(err); ok {
		return fe.Field
	}
	var se *Error
	if errors.As(err, &se) {
		return se.Name
	}
	return ""
}

func TestParseToken(t *testing.T) {
	raw := "a raw secret of some length"
	if tok, err := ParseToken(raw); err != nil || string(tok) != raw {
		t.Fatalf("raw: %q, %v", tok, err)
	}
	if tok, err := ParseToken(" " + testToken + "\n"); err != nil || len(tok) != 32 || tok[1] != 0x11 {
		t.Fatalf("hex: %x, %v", tok, err)
	}
	// 17 hex digits are not hex: taken raw.
	if tok, err := ParseToken("0123456789abcdef0"); err != nil || len(tok) != 17 {
		t.Fatalf("odd hex: %q, %v", tok, err)
	}
	// 16 hex digits decode to 8 bytes: too short.
	if _, err := ParseToken("0123456789abcdef"); err == nil {
		t.Fatal("8-byte token accepted")
	}
	a, b := DefaultJobID([]byte("token one........")), DefaultJobID([]byte("token two........"))
	if a == b || !strings.HasPrefix(a, "job-") || strings.Contains(a, "token") {
		t.Fatalf("job ids %q %q", a, b)
	}
}
