package local

import (
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/botix/public-api/internal/app"
	"github.com/botix/public-api/internal/app/registry"
)

// callLog collects the AWS calls functions make that registry.Permissions
// does not declare for them.
type callLog struct {
	mu         sync.Mutex
	undeclared map[string]bool
}

// recorder returns the call recorder of one function.
func (r *Runtime) recorder(fn string) app.CallRecorder {
	declared := map[app.Permission]bool{}
	for _, p := range registry.Permissions[fn] {
		declared[p] = true
	}
	return func(p app.Permission) {
		logical := app.Permission{Action: p.Action, Resource: r.logicalResource(p.Resource)}
		if declared[logical] {
			return
		}
		r.calls.mu.Lock()
		defer r.calls.mu.Unlock()
		if r.calls.undeclared == nil {
			r.calls.undeclared = map[string]bool{}
		}
		r.calls.undeclared[fmt.Sprintf("%s calls %s on %s", fn, logical.Action, logical.Resource)] = true
	}
}

// logicalResource maps a physical name (table, table index, queue URL,
// schedule group, role ARN) back to the template's logical id.
func (r *Runtime) logicalResource(physical string) string {
	base, suffix, _ := strings.Cut(physical, "/index/")
	if suffix != "" {
		suffix = "/index/" + suffix
	}
	for id, name := range r.tables {
		if name == base {
			return id + suffix
		}
	}
	for id, q := range r.queues {
		if q.URL() == physical {
			return id
		}
	}
	for _, id := range r.cfg.Template.OfType("AWS::Scheduler::ScheduleGroup") {
		if name, err := r.ref(id); err == nil && name+"/*" == physical {
			return id + "/*"
		}
	}
	for _, id := range r.cfg.Template.OfType("AWS::IAM::Role") {
		if arn, err := r.getAtt(id, "Arn"); err == nil && arn == physical {
			return id
		}
	}
	return physical
}

// UndeclaredCalls lists the calls functions made that registry.Permissions
// (and so their template policy) does not allow.
func (r *Runtime) UndeclaredCalls() []string {
	r.calls.mu.Lock()
	defer r.calls.mu.Unlock()
	var out []string
	for c := range r.calls.undeclared {
		out = append(out, c)
	}
	sort.Strings(out)
	return out
}
