package awsemu

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/google/uuid"
)

// SchedulerTick is how often, on the Scheduler's Clock, due schedules
// are fired: a one-shot schedule fires within this much of its time (AWS:
// within a minute).
const SchedulerTick = 250 * time.Millisecond

// Scheduler is an in-process EventBridge Scheduler: schedule groups and
// one-shot at() schedules whose target is a queue of an SQS (the
// templated target: the queue's ARN, Input the body) or SQS's
// SendMessage (the universal target sendMessageTarget: Input is the
// SendMessage request, so it can carry a MessageGroupId), fired by Run.
type Scheduler struct {
	// Clock is the time schedules are due by and Run ticks on (nil: the
	// SQS's Clock). Set it before the Scheduler is used.
	Clock Clock

	sqs *SQS
	log *slog.Logger

	mu        sync.Mutex
	groups    map[string]time.Time // name -> creation
	schedules map[string]*Schedule // group + "/" + name
}

// Schedule is one schedule.
type Schedule struct {
	Name                       string             `json:"Name"`
	GroupName                  string             `json:"GroupName"`
	ScheduleExpression         string             `json:"ScheduleExpression"`
	ScheduleExpressionTimezone string             `json:"ScheduleExpressionTimezone,omitempty"`
	State                      string             `json:"State"`
	ActionAfterCompletion      string             `json:"ActionAfterCompletion"`
	Description                string             `json:"Description,omitempty"`
	FlexibleTimeWindow         FlexibleTimeWindow `json:"FlexibleTimeWindow"`
	Target                     Target             `json:"Target"`

	due               time.Time
	fired             bool
	created, modified time.Time
}

// FlexibleTimeWindow is a schedule's window.
type FlexibleTimeWindow struct {
	Mode                   string `json:"Mode"`
	MaximumWindowInMinutes *int   `json:"MaximumWindowInMinutes,omitempty"`
}

// sendMessageTarget matches the universal target that calls SQS
// SendMessage, in any partition.
var sendMessageTarget = regexp.MustCompile(`^arn:aws[a-z-]*:scheduler:::aws-sdk:sqs:sendMessage$`)

// Target is where a schedule sends its input.
type Target struct {
	Arn     string `json:"Arn"`
	RoleArn string `json:"RoleArn"`
	Input   string `json:"Input,omitempty"`
}

// NewScheduler returns a Scheduler with the "default" group, whose
// targets are the queues of sqs; log receives the failures to fire.
func NewScheduler(sqs *SQS, log *slog.Logger) *Scheduler {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	sc := &Scheduler{sqs: sqs, log: log, schedules: map[string]*Schedule{}}
	sc.groups = map[string]time.Time{"default": sc.now()}
	return sc
}

func (sc *Scheduler) clock() Clock {
	if sc.Clock == nil {
		return sc.sqs.clock()
	}
	return sc.Clock
}

func (sc *Scheduler) now() time.Time { return sc.clock().Now() }

func schedulerError(status int, code, format string, args ...any) *Error {
	return &Error{Code: code, Status: status, Message: fmt.Sprintf(format, args...)}
}

func validation(format string, args ...any) *Error {
	return schedulerError(http.StatusBadRequest, "ValidationException", format, args...)
}

var scheduleNameRe = regexp.MustCompile(`^[0-9a-zA-Z_.-]{1,64}$`)

// CreateGroup creates a schedule group.
func (sc *Scheduler) CreateGroup(name string) error {
	if !scheduleNameRe.MatchString(name) {
		return validation("Name must be 1 to 64 letters, digits, '.', '-' or '_'.")
	}
	sc.mu.Lock()
	defer sc.mu.Unlock()
	if _, ok := sc.groups[name]; ok {
		return schedulerError(http.StatusConflict, "ConflictException", "Schedule group %s already exists.", name)
	}
	sc.groups[name] = sc.now()
	return nil
}

// Put creates a schedule (update false) or replaces one (update true).
func (sc *Scheduler) Put(s Schedule, update bool) error {
	if err := sc.check(&s); err != nil {
		return err
	}
	sc.mu.Lock()
	defer sc.mu.Unlock()
	if _, ok := sc.groups[s.GroupName]; !ok {
		return schedulerError(http.StatusNotFound, "ResourceNotFoundException", "Schedule group %s does not exist.", s.GroupName)
	}
	key := s.GroupName + "/" + s.Name
	old, exists := sc.schedules[key]
	switch {
	case exists && !update:
		return schedulerError(http.StatusConflict, "ConflictException", "Schedule %s already exists.", s.Name)
	case !exists && update:
		return schedulerError(http.StatusNotFound, "ResourceNotFoundException", "Schedule %s does not exist.", s.Name)
	}
	s.created = sc.now()
	s.modified = s.created
	if exists {
		s.created = old.created
	}
	sc.schedules[key] = &s
	return nil
}

// check validates a schedule and sets its defaults and due time.
func (sc *Scheduler) check(s *Schedule) error {
	if s.GroupName == "" {
		s.GroupName = "default"
	}
	if !scheduleNameRe.MatchString(s.Name) {
		return validation("Name must be 1 to 64 letters, digits, '.', '-' or '_'.")
	}
	if s.State == "" {
		s.State = "ENABLED"
	}
	if s.ActionAfterCompletion == "" {
		s.ActionAfterCompletion = "NONE"
	}
	switch {
	case s.State != "ENABLED" && s.State != "DISABLED":
		return validation("State must be ENABLED or DISABLED.")
	case s.ActionAfterCompletion != "NONE" && s.ActionAfterCompletion != "DELETE":
		return validation("ActionAfterCompletion must be NONE or DELETE.")
	case s.FlexibleTimeWindow.Mode != "OFF" && s.FlexibleTimeWindow.Mode != "FLEXIBLE":
		return validation("FlexibleTimeWindow.Mode must be OFF or FLEXIBLE.")
	case s.Target.Arn == "" || s.Target.RoleArn == "":
		return validation("Target needs an Arn and a RoleArn.")
	case !strings.HasPrefix(s.Target.Arn, "arn:aws:sqs:") && !sendMessageTarget.MatchString(s.Target.Arn):
		return validation("the local Scheduler sends to SQS queues (their ARN, or the universal target arn:aws:scheduler:::aws-sdk:sqs:sendMessage) only, not %s", s.Target.Arn)
	}
	at, ok := strings.CutPrefix(s.ScheduleExpression, "at(")
	if !ok || !strings.HasSuffix(at, ")") {
		return validation("the local Scheduler fires one-shot at(yyyy-mm-ddThh:mm:ss) schedules only, not %q", s.ScheduleExpression)
	}
	loc := time.UTC
	if tz := s.ScheduleExpressionTimezone; tz != "" {
		l, err := time.LoadLocation(tz)
		if err != nil {
			return validation("Invalid ScheduleExpressionTimezone %q.", tz)
		}
		loc = l
	}
	due, err := time.ParseInLocation("2006-01-02T15:04:05", strings.TrimSuffix(at, ")"), loc)
	if err != nil {
		return validation("Invalid Schedule Expression %s.", s.ScheduleExpression)
	}
	s.due = due
	return nil
}

// Get returns a schedule.
func (sc *Scheduler) Get(group, name string) (Schedule, error) {
	if group == "" {
		group = "default"
	}
	sc.mu.Lock()
	defer sc.mu.Unlock()
	s, ok := sc.schedules[group+"/"+name]
	if !ok {
		return Schedule{}, schedulerError(http.StatusNotFound, "ResourceNotFoundException", "Schedule %s does not exist.", name)
	}
	return *s, nil
}

// Delete deletes a schedule.
func (sc *Scheduler) Delete(group, name string) error {
	if group == "" {
		group = "default"
	}
	sc.mu.Lock()
	defer sc.mu.Unlock()
	key := group + "/" + name
	if _, ok := sc.schedules[key]; !ok {
		return schedulerError(http.StatusNotFound, "ResourceNotFoundException", "Schedule %s does not exist.", name)
	}
	delete(sc.schedules, key)
	return nil
}

// List returns the schedules of a group ("" for all), sorted by group and
// name.
func (sc *Scheduler) List(group, prefix string) []Schedule {
	sc.mu.Lock()
	defer sc.mu.Unlock()
	var out []Schedule
	for _, s := range sc.schedules {
		if (group == "" || s.GroupName == group) && strings.HasPrefix(s.Name, prefix) {
			out = append(out, *s)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].GroupName+"/"+out[i].Name < out[j].GroupName+"/"+out[j].Name })
	return out
}

// Pending counts the enabled schedules that have not fired yet.
func (sc *Scheduler) Pending() int {
	sc.mu.Lock()
	defer sc.mu.Unlock()
	n := 0
	for _, s := range sc.schedules {
		if !s.fired && s.State == "ENABLED" {
			n++
		}
	}
	return n
}

// Run fires due schedules until ctx ends: it sends the target's input to
// the queue, then deletes the schedule if it asked for that
// (ActionAfterCompletion DELETE). A target queue that does not exist is
// logged and the schedule counts as fired, as AWS drops an invocation
// that keeps failing.
//
// It ticks every SchedulerTick on the Clock, and a tick fires in the
// goroutine the Clock calls it in: with a ManualClock, an Advance of
// SchedulerTick or more to a schedule's time has sent its input when it
// returns. Run returns when ctx has ended and the tick under way, if
// any, is done.
func (sc *Scheduler) Run(ctx context.Context) {
	end := sc.start(ctx)
	<-ctx.Done()
	end()
}

// start schedules Run's first tick before it returns (so that a test's
// first Advance finds it) and returns end, which stops the ticks and
// waits for the one under way; call it once ctx has ended.
func (sc *Scheduler) start(ctx context.Context) (end func()) {
	clock := sc.clock()
	var (
		mu   sync.Mutex // guards stop
		stop func() bool
		busy sync.WaitGroup // the tick waiting or under way
	)
	var tick func()
	tick = func() {
		defer busy.Done()
		sc.fireDue(clock.Now())
		mu.Lock()
		defer mu.Unlock()
		if ctx.Err() == nil {
			busy.Add(1)
			stop = clock.AfterFunc(SchedulerTick, tick)
		}
	}
	mu.Lock()
	busy.Add(1)
	stop = clock.AfterFunc(SchedulerTick, tick)
	mu.Unlock()
	return func() {
		mu.Lock()
		if stop() {
			busy.Done()
		}
		mu.Unlock()
		busy.Wait()
	}
}

func (sc *Scheduler) fireDue(now time.Time) {
	sc.mu.Lock()
	var due []*Schedule
	for _, s := range sc.schedules {
		if !s.fired && s.State == "ENABLED" && !now.Before(s.due) {
			s.fired = true
			due = append(due, s)
		}
	}
	sc.mu.Unlock()
	for _, s := range due {
		if err := sc.fire(s); err != nil {
			sc.log.Error("scheduler: schedule not delivered", "schedule", s.GroupName+"/"+s.Name, "target", s.Target.Arn, "error", err.Error())
		}
		if s.ActionAfterCompletion == "DELETE" {
			sc.mu.Lock()
			if sc.schedules[s.GroupName+"/"+s.Name] == s {
				delete(sc.schedules, s.GroupName+"/"+s.Name)
			}
			sc.mu.Unlock()
		}
	}
}

func (sc *Scheduler) fire(s *Schedule) error {
	if sendMessageTarget.MatchString(s.Target.Arn) {
		var in struct {
			queueURL
			sendEntry
		}
		if err := json.Unmarshal([]byte(s.Target.Input), &in); err != nil {
			return fmt.Errorf("the input of an sqs:sendMessage target is not a SendMessage request: %w", err)
		}
		q, err := sc.sqs.QueueByURL(in.QueueUrl)
		if err != nil {
			return err
		}
		_, err = in.send(q)
		return err
	}
	q, err := sc.sqs.QueueByARN(s.Target.Arn)
	if err != nil {
		return err
	}
	input := s.Target.Input
	if input == "" {
		input = "{}"
	}
	_, err = q.Send(input, SendOptions{})
	return err
}

func (sc *Scheduler) scheduleARN(group, name string) string {
	return fmt.Sprintf("arn:aws:scheduler:%s:%s:schedule/%s/%s", sc.sqs.region, sc.sqs.account, group, name)
}

func (sc *Scheduler) groupARN(name string) string {
	return fmt.Sprintf("arn:aws:scheduler:%s:%s:schedule-group/%s", sc.sqs.region, sc.sqs.account, name)
}

// ServeHTTP answers Scheduler's REST JSON protocol: /schedules and
// /schedule-groups.
func (sc *Scheduler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	out, err := sc.route(r)
	if err != nil {
		e, ok := err.(*Error)
		if !ok {
			e = schedulerError(http.StatusInternalServerError, "InternalServerException", "%s", err.Error())
		}
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("X-Amzn-ErrorType", e.Code)
		w.Header().Set("X-Amzn-RequestId", uuid.NewString())
		w.WriteHeader(e.Status)
		_ = json.NewEncoder(w).Encode(map[string]string{"Message": e.Message})
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("X-Amzn-RequestId", uuid.NewString())
	_ = json.NewEncoder(w).Encode(out)
}

func (sc *Scheduler) route(r *http.Request) (any, error) {
	q := r.URL.Query()
	switch path := r.URL.Path; {
	case path == "/schedules" && r.Method == http.MethodGet:
		return sc.serveList(q)
	case strings.HasPrefix(path, "/schedules/"):
		name, _ := url.PathUnescape(strings.TrimPrefix(path, "/schedules/"))
		switch r.Method {
		case http.MethodPost, http.MethodPut:
			var s Schedule
			if err := json.NewDecoder(r.Body).Decode(&s); err != nil {
				return nil, validation("the request body is not a schedule: %s", err.Error())
			}
			s.Name = name
			if err := sc.Put(s, r.Method == http.MethodPut); err != nil {
				return nil, err
			}
			group := s.GroupName
			if group == "" {
				group = "default"
			}
			return map[string]string{"ScheduleArn": sc.scheduleARN(group, name)}, nil
		case http.MethodGet:
			s, err := sc.Get(q.Get("groupName"), name)
			if err != nil {
				return nil, err
			}
			return sc.describe(s), nil
		case http.MethodDelete:
			return struct{}{}, sc.Delete(q.Get("groupName"), name)
		}
	case path == "/schedule-groups" && r.Method == http.MethodGet:
		return sc.serveGroups(q)
	case strings.HasPrefix(path, "/schedule-groups/"):
		name, _ := url.PathUnescape(strings.TrimPrefix(path, "/schedule-groups/"))
		switch r.Method {
		case http.MethodPost:
			if err := sc.CreateGroup(name); err != nil {
				return nil, err
			}
			return map[string]string{"ScheduleGroupArn": sc.groupARN(name)}, nil
		case http.MethodGet:
			sc.mu.Lock()
			created, ok := sc.groups[name]
			sc.mu.Unlock()
			if !ok {
				return nil, schedulerError(http.StatusNotFound, "ResourceNotFoundException", "Schedule group %s does not exist.", name)
			}
			return sc.describeGroup(name, created), nil
		case http.MethodDelete:
			return struct{}{}, sc.deleteGroup(name)
		}
	}
	return nil, validation("the local Scheduler serves schedules and schedule groups; not %s %s", r.Method, r.URL.Path)
}

func (sc *Scheduler) deleteGroup(name string) error {
	if name == "default" {
		return validation("The default schedule group cannot be deleted.")
	}
	sc.mu.Lock()
	defer sc.mu.Unlock()
	if _, ok := sc.groups[name]; !ok {
		return schedulerError(http.StatusNotFound, "ResourceNotFoundException", "Schedule group %s does not exist.", name)
	}
	delete(sc.groups, name)
	for key, s := range sc.schedules {
		if s.GroupName == name {
			delete(sc.schedules, key)
		}
	}
	return nil
}

func (sc *Scheduler) describe(s Schedule) map[string]any {
	b, _ := json.Marshal(s)
	var out map[string]any
	_ = json.Unmarshal(b, &out)
	out["Arn"] = sc.scheduleARN(s.GroupName, s.Name)
	out["CreationDate"] = epoch(s.created)
	out["LastModificationDate"] = epoch(s.modified)
	return out
}

func (sc *Scheduler) describeGroup(name string, created time.Time) map[string]any {
	return map[string]any{"Arn": sc.groupARN(name), "Name": name, "State": "ACTIVE", "CreationDate": epoch(created), "LastModificationDate": epoch(created)}
}

func epoch(t time.Time) float64 { return float64(t.UnixMilli()) / 1000 }

// page cuts a sorted list at NextToken (the last key of the previous page)
// and MaxResults (1 to 100).
func page[T any](items []T, key func(T) string, q url.Values) ([]T, string, error) {
	max := 100
	if v := q.Get("MaxResults"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > 100 {
			return nil, "", validation("MaxResults must be 1 to 100.")
		}
		max = n
	}
	after := q.Get("NextToken")
	var out []T
	for _, it := range items {
		if after != "" && key(it) <= after {
			continue
		}
		if len(out) == max {
			return out, key(out[len(out)-1]), nil
		}
		out = append(out, it)
	}
	return out, "", nil
}

func (sc *Scheduler) serveList(q url.Values) (any, error) {
	group := q.Get("ScheduleGroup")
	if group != "" {
		sc.mu.Lock()
		_, ok := sc.groups[group]
		sc.mu.Unlock()
		if !ok {
			return nil, schedulerError(http.StatusNotFound, "ResourceNotFoundException", "Schedule group %s does not exist.", group)
		}
	}
	var all []Schedule
	for _, s := range sc.List(group, q.Get("NamePrefix")) {
		if st := q.Get("State"); st == "" || st == s.State {
			all = append(all, s)
		}
	}
	items, next, err := page(all, func(s Schedule) string { return s.GroupName + "/" + s.Name }, q)
	if err != nil {
		return nil, err
	}
	list := []map[string]any{}
	for _, s := range items {
		list = append(list, map[string]any{
			"Arn": sc.scheduleARN(s.GroupName, s.Name), "Name": s.Name, "GroupName": s.GroupName, "State": s.State,
			"Target": map[string]string{"Arn": s.Target.Arn}, "CreationDate": epoch(s.created), "LastModificationDate": epoch(s.modified),
		})
	}
	out := map[string]any{"Schedules": list}
	if next != "" {
		out["NextToken"] = next
	}
	return out, nil
}

func (sc *Scheduler) serveGroups(q url.Values) (any, error) {
	sc.mu.Lock()
	var names []string
	for name := range sc.groups {
		if strings.HasPrefix(name, q.Get("NamePrefix")) {
			names = append(names, name)
		}
	}
	created := make(map[string]time.Time, len(names))
	for _, n := range names {
		created[n] = sc.groups[n]
	}
	sc.mu.Unlock()
	sort.Strings(names)
	items, next, err := page(names, func(s string) string { return s }, q)
	if err != nil {
		return nil, err
	}
	list := []map[string]any{}
	for _, n := range items {
		list = append(list, sc.describeGroup(n, created[n]))
	}
	out := map[string]any{"ScheduleGroups": list}
	if next != "" {
		out["NextToken"] = next
	}
	return out, nil
}

// Handler serves both services on one address, told apart as AWS tells
// them apart: X-Amz-Target AmazonSQS.* for SQS, the path for Scheduler.
func Handler(s *SQS, sc *Scheduler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if IsScheduler(r) {
			sc.ServeHTTP(w, r)
			return
		}
		s.ServeHTTP(w, r)
	})
}

// IsScheduler reports whether a request is for Scheduler's API.
func IsScheduler(r *http.Request) bool {
	return strings.HasPrefix(r.URL.Path, "/schedules") || strings.HasPrefix(r.URL.Path, "/schedule-groups")
}
