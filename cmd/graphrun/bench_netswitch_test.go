package main

import (
	"bytes"
	"strings"
	"testing"
)

// TestBenchNetSwitchFlags: bad flags of the emulator's switch exit 2 with
// the flag named, before any socket is opened.
func TestBenchNetSwitchFlags(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--ports", "port0,port1", "--delay", "-1ms"}, "--delay"},
		{[]string{"--ports", "port0"}, "--ports"},
		{[]string{"--ports", "port0,port1", "--stats-every", "0s"}, "--stats-every"},
		{[]string{"--ports", "no-such-interface-0,no-such-interface-1"}, "--ports"},
	} {
		var out, errb bytes.Buffer
		code := run(append([]string{"bench", "net-switch"}, tc.args...), &out, &errb)
		if code != 2 || !strings.Contains(errb.String(), tc.want) {
			t.Errorf("bench net-switch %v: exit %d, stderr %q; want 2 naming %s", tc.args, code, errb.String(), tc.want)
		}
	}
}
