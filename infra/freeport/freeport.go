// Package freeport picks a loopback TCP port that nothing listens on, for
// the children and servers the tools and tests start (DynamoDB Local, the
// Lambda Runtime Interface Emulator, the examples' webhook receivers).
package freeport

import "net"

// Pick returns a port of 127.0.0.1 that was free a moment ago: the one the
// kernel gives a listener that is closed at once. Something else may take
// it before the caller listens on it, so callers listen (or start the
// child that does) right away.
func Pick() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}
