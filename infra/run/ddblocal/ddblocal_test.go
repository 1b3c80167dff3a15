package ddblocal

import (
	"bufio"
	"context"
	"encoding/hex"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// listeners returns the local addresses of the sockets listening on port,
// read from /proc/net/tcp and /proc/net/tcp6 (what the kernel bound, not
// what the engine says).
func listeners(t *testing.T, port int) []net.IP {
	t.Helper()
	var out []net.IP
	for _, file := range []string{"/proc/net/tcp", "/proc/net/tcp6"} {
		f, err := os.Open(file)
		if err != nil {
			t.Fatalf("%s: %v (the test reads the kernel's socket table)", file, err)
		}
		sc := bufio.NewScanner(f)
		sc.Scan() // header
		for sc.Scan() {
			fields := strings.Fields(sc.Text())
			// sl local_address rem_address st ...; st 0A is LISTEN.
			if len(fields) < 4 || fields[3] != "0A" {
				continue
			}
			hexIP, hexPort, _ := strings.Cut(fields[1], ":")
			if p, _ := strconv.ParseUint(hexPort, 16, 16); int(p) != port {
				continue
			}
			out = append(out, procIP(t, hexIP))
		}
		f.Close()
	}
	return out
}

// procIP decodes an address of /proc/net/tcp{,6}: 32-bit words in host
// (little-endian) byte order.
func procIP(t *testing.T, s string) net.IP {
	t.Helper()
	b, err := hex.DecodeString(s)
	if err != nil || (len(b) != 4 && len(b) != 16) {
		t.Fatalf("address %q in the socket table", s)
	}
	for i := 0; i < len(b); i += 4 {
		b[i], b[i+1], b[i+2], b[i+3] = b[i+3], b[i+2], b[i+1], b[i]
	}
	return net.IP(b)
}

func port(t *testing.T, endpoint string) int {
	t.Helper()
	u, err := url.Parse(endpoint)
	if err != nil {
		t.Fatal(err)
	}
	p, err := strconv.Atoi(u.Port())
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// otherAddresses are this machine's addresses that are not loopback.
func otherAddresses(t *testing.T) []net.IP {
	t.Helper()
	addrs, err := net.InterfaceAddrs()
	if err != nil {
		t.Fatal(err)
	}
	var out []net.IP
	for _, a := range addrs {
		if n, ok := a.(*net.IPNet); ok && !n.IP.IsLoopback() && !n.IP.IsLinkLocalUnicast() {
			out = append(out, n.IP)
		}
	}
	return out
}

func startEngine(t *testing.T) *Instance {
	t.Helper()
	inst, err := Start(context.Background())
	if err != nil {
		t.Fatalf("DynamoDB Local is required by this test and could not start: %v", err)
	}
	t.Cleanup(inst.Stop)
	return inst
}

// TestDynamoDBLocalIsReachableFromThisMachineOnly: the engine holds every
// table of make run (signing secrets included) without authentication, so
// it must not listen beyond loopback. Nor may a web page's script read it:
// DynamoDB Local 3.3.1 answers a CORS preflight without
// Access-Control-Allow-Origin (even with -cors '*'), so browsers keep
// its answers from pages; the last case holds the next engine to that.
func TestDynamoDBLocalIsReachableFromThisMachineOnly(t *testing.T) {
	inst := startEngine(t)
	p := port(t, inst.Endpoint)
	t.Run("its listening socket is bound to 127.0.0.1 only", func(t *testing.T) {
		if !inst.Loopback {
			t.Fatal("Start fell back to the jar's own main, which listens on every interface")
		}
		ips := listeners(t, p)
		if len(ips) == 0 {
			t.Fatalf("no socket listens on port %d", p)
		}
		for _, ip := range ips {
			if !ip.IsLoopback() {
				t.Errorf("a socket listens on %s port %d: reachable from other machines", ip, p)
			}
		}
	})
	t.Run("this machine's other addresses refuse the connection", func(t *testing.T) {
		others := otherAddresses(t)
		if len(others) == 0 {
			t.Log("this machine has no address besides loopback; the socket table above is the whole check")
		}
		for _, ip := range others {
			c, err := net.DialTimeout("tcp", net.JoinHostPort(ip.String(), strconv.Itoa(p)), 2*time.Second)
			if err == nil {
				c.Close()
				t.Errorf("DynamoDB Local answers on %s", ip)
			}
		}
	})
	t.Run("a web page's CORS preflight is not allowed", func(t *testing.T) {
		for _, origin := range []string{"http://attacker.example", "http://127.0.0.1:8080", "null"} {
			req, _ := http.NewRequest(http.MethodOptions, inst.Endpoint, nil)
			req.Header.Set("Origin", origin)
			req.Header.Set("Access-Control-Request-Method", "POST")
			req.Header.Set("Access-Control-Request-Headers", "authorization,content-type,x-amz-target")
			res, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			res.Body.Close()
			if got := res.Header.Get("Access-Control-Allow-Origin"); got != "" {
				t.Errorf("origin %s: Access-Control-Allow-Origin %q", origin, got)
			}
		}
	})
	t.Run("it answers the runtime at its endpoint", func(t *testing.T) {
		if !ready(inst.Endpoint) {
			t.Fatal("ListTables at the endpoint failed")
		}
	})
}

// TestDynamoDBLocalWithoutSourceLaunch: a Java runtime without the
// jdk.compiler module cannot run the loopback launcher; the engine still
// starts (make run keeps working), and Loopback says it is not confined.
func TestDynamoDBLocalWithoutSourceLaunch(t *testing.T) {
	javaOptions = []string{"--limit-modules", "java.se,jdk.unsupported,jdk.crypto.ec,jdk.zipfs,jdk.net,jdk.localedata"}
	// A cache of its own: a launcher compiled before would load without
	// the compiler.
	cached, classes := launcherClasses, filepath.Join(t.TempDir(), "launcher")
	launcherClasses = func(string) string { return classes }
	t.Cleanup(func() { javaOptions, launcherClasses = nil, cached })
	inst := startEngine(t)
	if inst.Loopback {
		t.Fatal("Loopback is true, but this runtime cannot run the launcher")
	}
	ips := listeners(t, port(t, inst.Endpoint))
	wildcard := false
	for _, ip := range ips {
		wildcard = wildcard || ip.IsUnspecified()
	}
	if !wildcard {
		t.Fatalf("listeners %v: the jar by itself listens on every interface, which is what Loopback=false reports", ips)
	}
	if !ready(inst.Endpoint) {
		t.Fatal(fmt.Sprint("ListTables at ", inst.Endpoint, " failed"))
	}
}
