package main

import (
	"net"
	"strings"
	"testing"
)

func TestATakenPortIsNamedWithTheVariableThatMovesIt(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	err = portFree(l.Addr().String(), "AWS_PORT")
	if err == nil {
		t.Fatalf("%s is taken, and portFree says nothing", l.Addr())
	}
	want := "cannot listen on " + l.Addr().String() + " (address already in use): stop what listens there, or choose another port with AWS_PORT (AWS_PORT=<port> make run)"
	if err.Error() != want || strings.Contains(err.Error(), "\n") {
		t.Errorf("error %q, want %q", err, want)
	}
	free := l.Addr().String()
	l.Close()
	if err := portFree(free, "PORT"); err != nil {
		t.Errorf("a free port: %v", err)
	}
}
