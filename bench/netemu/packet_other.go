//go:build !linux

package netemu

import (
	"fmt"
	"runtime"
)

// PacketHeader is the header before every frame of a packet port (Linux
// only).
const PacketHeader = 10

// OpenPacketPort fails: packet sockets on network namespaces' veth links
// exist on Linux only, as does the emulated cluster.
func OpenPacketPort(name string) (Port, error) {
	return nil, fmt.Errorf("netemu: %s: switch ports need Linux packet sockets, not %s", name, runtime.GOOS)
}
