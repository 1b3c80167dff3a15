package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"sync"
)

// compileStep runs go build or go vet with -v and counts the packages it
// compiles against the packages it needs (go list -deps, with -test for
// vet, which type-checks test files against compiled dependencies).
func compileStep(ctx context.Context, args []string) *step {
	c := &compiling{}
	s := &step{label: args[0] + " " + args[1], status: c.status}
	s.run = func(ctx context.Context, stdout, stderr io.Writer) int {
		c.needed(ctx, args, stderr)
		cmd := command(ctx, withFlag(args, "-v"))
		cmd.Stdout = stdout
		return runReading(cmd, cmd.StderrPipe, func(r io.Reader) { c.read(r, stderr) }, stderr)
	}
	return s
}

// compiling counts what go build -v or go vet -v names on stderr.
type compiling struct {
	mu       sync.Mutex
	packages map[string]bool // what the command needs; nil if go list failed
	names    map[string]bool // their names as the go command prints them
	compiled int
}

// needed lists the packages the go command of args needs.
func (c *compiling) needed(ctx context.Context, args []string, stderr io.Writer) {
	list := []string{"list", "-e", "-deps"}
	if args[1] == "vet" {
		list = append(list, "-test")
	}
	flags, pkgs := splitGoArgs(args[2:])
	for i := 0; i < len(flags); i++ {
		if f := flags[i]; f == "-tags" || f == "-mod" || f == "-modfile" {
			list = append(list, f, flags[i+1])
			i++
		} else if strings.HasPrefix(f, "-tags=") || strings.HasPrefix(f, "-mod=") || strings.HasPrefix(f, "-modfile=") {
			list = append(list, f)
		}
	}
	ls := exec.CommandContext(ctx, args[0], append(list, pkgs...)...)
	ls.Stderr = stderr // go: downloading ..., on a cold module cache
	out, err := ls.Output()
	if err != nil {
		return // the command itself will say what is wrong
	}
	set := map[string]bool{}
	for _, p := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		if p != "" && !strings.HasSuffix(p, ".test") { // test mains are linked, not vetted
			set[p] = true
		}
	}
	c.mu.Lock()
	c.setPackages(set)
	c.mu.Unlock()
}

// setPackages takes the go list -deps lines of what is needed. The go
// command names a test variant ("p [p.test]", "p_test [p.test]") without
// its brackets when it compiles it.
func (c *compiling) setPackages(list map[string]bool) {
	c.packages, c.names = list, map[string]bool{}
	for p := range list {
		name, _, _ := strings.Cut(p, " [")
		c.names[name] = true
	}
}

// read counts the package names among the lines of r and copies every
// other line (compiler errors, vet's findings, downloads) to w.
func (c *compiling) read(r io.Reader, w io.Writer) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		c.mu.Lock()
		known := c.names[line]
		if known {
			c.compiled++
		}
		c.mu.Unlock()
		if !known {
			fmt.Fprintln(w, line)
		}
	}
	_, _ = io.Copy(w, r) // a line longer than the buffer: pass the rest on
}

func (c *compiling) status() (key, line string) {
	line = c.line()
	return line, line
}

func (c *compiling) line() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.packages == nil {
		return "listing the packages it needs"
	}
	if c.compiled == 0 {
		return fmt.Sprintf("checking the build cache for the %d packages it needs", len(c.packages))
	}
	return fmt.Sprintf("compiled %d of the %d packages it needs (cached ones are skipped)", c.compiled, len(c.packages))
}

// withFlag inserts flag after the go subcommand (args[1]).
func withFlag(args []string, flag string) []string {
	out := append([]string{args[0], args[1], flag}, args[2:]...)
	return out
}

// boolFlags are the go build, vet and test flags that take no value.
var boolFlags = map[string]bool{
	"-a": true, "-n": true, "-x": true, "-v": true, "-race": true, "-msan": true, "-asan": true,
	"-work": true, "-trimpath": true, "-linkshared": true, "-modcacherw": true, "-json": true,
	"-short": true, "-failfast": true, "-benchmem": true, "-cover": true, "-i": true,
}

// splitGoArgs separates the flags of a go subcommand's arguments from its
// package patterns; a flag not in boolFlags takes the next argument as its
// value unless written -flag=value. Test binary arguments (after -args) are
// dropped.
func splitGoArgs(args []string) (flags, pkgs []string) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "-args":
			return flags, pkgs
		case strings.HasPrefix(a, "-"):
			flags = append(flags, a)
			if !strings.Contains(a, "=") && !boolFlags[strings.Replace(a, "--", "-", 1)] && i+1 < len(args) {
				flags = append(flags, args[i+1])
				i++
			}
		default:
			pkgs = append(pkgs, a)
		}
	}
	return flags, pkgs
}
