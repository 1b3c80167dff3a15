package bench

import (
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// cpuSample is CPU time used so far: by this process (which runs the
// functions, the local runtime and its SQS and Scheduler) and by the whole machine.
type cpuSample struct {
	self, machine time.Duration
}

func sampleCPU() cpuSample {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	self := time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	return cpuSample{self: self, machine: machineCPU()}
}

// machineCPU reads the busy time of all CPUs from /proc/stat (Linux).
func machineCPU() time.Duration {
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		return 0
	}
	line, _, _ := strings.Cut(string(b), "\n")
	fields := strings.Fields(line)
	var busy int64
	for i, f := range fields[1:] {
		if i == 3 || i == 4 { // idle, iowait
			continue
		}
		n, _ := strconv.ParseInt(f, 10, 64)
		busy += n
	}
	return time.Duration(busy) * 10 * time.Millisecond // USER_HZ = 100
}

// share is the fraction of the machine's busy CPU time since start that
// this process used.
func (start cpuSample) share() float64 {
	now := sampleCPU()
	m := now.machine - start.machine
	if m <= 0 {
		return 0
	}
	return float64(now.self-start.self) / float64(m)
}
