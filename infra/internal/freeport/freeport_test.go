package freeport

import (
	"net"
	"strconv"
	"testing"
)

// TestPickedPortsAreDifferentAndFree: the ports of one Pick differ, and a
// listener can take each of them afterwards.
func TestPickedPortsAreDifferentAndFree(t *testing.T) {
	const n = 5
	ports, err := Pick(n)
	if err != nil || len(ports) != n {
		t.Fatalf("Pick(%d) = %v, %v", n, ports, err)
	}
	seen := map[int]bool{}
	for _, p := range ports {
		if seen[p] {
			t.Fatalf("port %d picked twice: %v", p, ports)
		}
		seen[p] = true
		l, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(p))
		if err != nil {
			t.Fatalf("picked port %d is not free: %v", p, err)
		}
		l.Close()
	}
}
