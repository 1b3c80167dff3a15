package freeport

import (
	"net"
	"strconv"
	"testing"
)

// TestPickedPortCanBeListenedOn: the port Pick returns is a real one that
// a listener can take after it.
func TestPickedPortCanBeListenedOn(t *testing.T) {
	p, err := Pick()
	if err != nil {
		t.Fatal(err)
	}
	if p <= 0 || p > 65535 {
		t.Fatalf("port %d", p)
	}
	l, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(p))
	if err != nil {
		t.Fatalf("picked port %d is not free: %v", p, err)
	}
	l.Close()
}
