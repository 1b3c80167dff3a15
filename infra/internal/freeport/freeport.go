// Package freeport picks loopback TCP ports that nothing listens on, for
// the children and servers the tools and tests start (DynamoDB Local, the
// Lambda Runtime Interface Emulator, the examples' webhook receivers).
package freeport

import "net"

// Pick returns n different ports of 127.0.0.1 that were free a moment ago:
// the ones the kernel gives n listeners, all held until the last is chosen
// (so no port comes twice) and then closed. Something else may take a port
// before the caller listens on it, so callers listen (or start the child
// that does) right away.
func Pick(n int) ([]int, error) {
	ports := make([]int, 0, n)
	for range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, err
		}
		defer l.Close()
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
	}
	return ports, nil
}
