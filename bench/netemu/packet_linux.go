//go:build linux

package netemu

// The switch's ports on Linux: AF_PACKET sockets bound to the veth ends
// in the switch namespace (see the package comment).

import (
	"errors"
	"fmt"
	"net"
	"syscall"
	"time"
)

// pollInterval bounds how long a packet port's Read blocks.
const pollInterval = 200 * time.Millisecond

// packetVnetHdr is the socket option PACKET_VNET_HDR (linux/if_packet.h).
const packetVnetHdr = 15

// PacketHeader is the header before every frame of a packet port: a
// struct virtio_net_hdr, which carries an offloaded frame's checksum and
// segmentation state across the switch. Without it a TCP segment whose
// checksum the sender left to the device would reach the receiver with a
// wrong one, and a segment larger than the MTU could not be sent on.
const PacketHeader = 10

// packetPort is a network interface seen through an AF_PACKET socket.
type packetPort struct {
	name string
	fd   int
}

// htons turns a 16-bit protocol number into network byte order.
func htons(v uint16) uint16 { return v<<8 | v>>8 }

// OpenPacketPort opens the interface name as a switch port: every frame
// that arrives on it is read, every frame written leaves through it (and
// through its qdisc, so a tbf on it shapes what the switch sends). Needs
// CAP_NET_RAW.
func OpenPacketPort(name string) (Port, error) {
	ifc, err := net.InterfaceByName(name)
	if err != nil {
		return nil, fmt.Errorf("netemu: %w", err)
	}
	fd, err := syscall.Socket(syscall.AF_PACKET, syscall.SOCK_RAW|syscall.SOCK_CLOEXEC, int(htons(syscall.ETH_P_ALL)))
	if err != nil {
		return nil, fmt.Errorf("netemu: packet socket for %s: %w", name, err)
	}
	p := &packetPort{name: name, fd: fd}
	if err := syscall.Bind(fd, &syscall.SockaddrLinklayer{Protocol: htons(syscall.ETH_P_ALL), Ifindex: ifc.Index}); err != nil {
		p.Close()
		return nil, fmt.Errorf("netemu: bind to %s: %w", name, err)
	}
	if err := syscall.SetsockoptInt(fd, syscall.SOL_PACKET, packetVnetHdr, 1); err != nil {
		p.Close()
		return nil, fmt.Errorf("netemu: %s: PACKET_VNET_HDR: %w", name, err)
	}
	tv := syscall.NsecToTimeval(pollInterval.Nanoseconds())
	if err := syscall.SetsockoptTimeval(fd, syscall.SOL_SOCKET, syscall.SO_RCVTIMEO, &tv); err != nil {
		p.Close()
		return nil, fmt.Errorf("netemu: %s: %w", name, err)
	}
	return p, nil
}

// Read returns the next frame that arrived on the interface, skipping the
// ones leaving it (a packet socket sees both).
func (p *packetPort) Read(buf []byte) (int, error) {
	for {
		n, from, err := syscall.Recvfrom(p.fd, buf, 0)
		switch {
		case errors.Is(err, syscall.EAGAIN), errors.Is(err, syscall.EINTR):
			return 0, ErrTimeout
		case err != nil:
			return 0, fmt.Errorf("%s: %w", p.name, err)
		}
		if ll, ok := from.(*syscall.SockaddrLinklayer); ok && ll.Pkttype == syscall.PACKET_OUTGOING {
			continue
		}
		return n, nil
	}
}

// Write sends frame out of the interface. A frame the qdisc refuses
// (ENOBUFS: its queue is full) is dropped, as a link would drop it.
func (p *packetPort) Write(frame []byte) error {
	_, err := syscall.Write(p.fd, frame)
	if errors.Is(err, syscall.ENOBUFS) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("%s: %w", p.name, err)
	}
	return nil
}

// Close closes the socket.
func (p *packetPort) Close() error { return syscall.Close(p.fd) }
