package launch

// A rank that Local started dies with its launcher: the kernel kills it
// when the launcher dies (childAttr: a parent-death signal, on Linux), and
// a rank that starts after its launcher is gone (the launcher died between
// starting it and the rank's first instruction, or the rank was started by
// hand with a launcher's environment) refuses to run. Nobody would collect
// its status, forward its output or stop it.

import (
	"fmt"
	"os"
	"strconv"
)

// EnvLauncher names the launcher's process id in the environment of the
// ranks Local starts.
const EnvLauncher = "GRAPHRUN_LAUNCHER_PID"

// launcherOf reads EnvLauncher: 0 when unset, an error when it is not a
// process id.
func launcherOf(env Lookup) (int, error) {
	v, ok := env(EnvLauncher)
	if !ok || v == "" {
		return 0, nil
	}
	pid, err := strconv.Atoi(v)
	if err != nil || pid < 1 {
		return 0, fmt.Errorf("%s: %q is not a process id", EnvLauncher, v)
	}
	return pid, nil
}

// checkLauncher fails when the job's launcher is no longer this process's
// parent (ppid): it died, and this process was handed to another.
func (job Job) checkLauncher(ppid int) error {
	if job.Launcher == 0 || job.Launcher == ppid {
		return nil
	}
	return fmt.Errorf("rank %d of %d: the launcher that started it (process %d) is gone; nothing would wait for this rank",
		job.Rank, job.Size, job.Launcher)
}

// launcherEnv is the EnvLauncher variable Local gives its children.
func launcherEnv() string { return EnvLauncher + "=" + strconv.Itoa(os.Getpid()) }
