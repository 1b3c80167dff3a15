package local

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/scheduler"
	schedtypes "github.com/aws/aws-sdk-go-v2/service/scheduler/types"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
)

// schedulerTick is how often due schedules are looked for: one-shot
// schedules fire within a second of their time (AWS rounds to the minute).
const schedulerTick = 250 * time.Millisecond

type pendingSchedule struct {
	group, name string
	due         time.Time
	target      string // SQS queue ARN
	input       string
	deleteAfter bool
}

// runScheduler plays EventBridge Scheduler for one-shot at() schedules with
// an SQS target, which kumo stores but never fires.
func (r *Runtime) runScheduler(ctx context.Context) {
	known := map[string]*pendingSchedule{}
	for ctx.Err() == nil {
		seen := map[string]bool{}
		for _, group := range r.groups {
			p := scheduler.NewListSchedulesPaginator(r.sched, &scheduler.ListSchedulesInput{GroupName: aws.String(group)})
			for p.HasMorePages() {
				page, err := p.NextPage(ctx)
				if err != nil {
					break
				}
				for _, s := range page.Schedules {
					key := group + "/" + aws.ToString(s.Name)
					seen[key] = true
					if known[key] == nil {
						if ps, err := r.loadSchedule(ctx, group, aws.ToString(s.Name)); err == nil {
							known[key] = ps
						} else {
							r.cfg.Log.Error("local: unusable schedule", "schedule", key, "error", err.Error())
						}
					}
				}
			}
		}
		now := time.Now()
		for key, ps := range known {
			if !seen[key] {
				delete(known, key)
				continue
			}
			if now.Before(ps.due) {
				continue
			}
			if err := r.fire(ctx, ps); err != nil {
				r.cfg.Log.Error("local: schedule not fired; will retry", "schedule", key, "error", err.Error())
				continue
			}
			delete(known, key)
		}
		sleepCtx(ctx, schedulerTick)
	}
}

func (r *Runtime) loadSchedule(ctx context.Context, group, name string) (*pendingSchedule, error) {
	s, err := r.sched.GetSchedule(ctx, &scheduler.GetScheduleInput{GroupName: aws.String(group), Name: aws.String(name)})
	if err != nil {
		return nil, err
	}
	expr := aws.ToString(s.ScheduleExpression)
	at, ok := strings.CutPrefix(expr, "at(")
	if !ok || !strings.HasSuffix(at, ")") {
		return nil, fmt.Errorf("only one-shot at() schedules are emulated, not %q", expr)
	}
	loc := time.UTC
	if tz := aws.ToString(s.ScheduleExpressionTimezone); tz != "" {
		if loc, err = time.LoadLocation(tz); err != nil {
			return nil, err
		}
	}
	due, err := time.ParseInLocation("2006-01-02T15:04:05", strings.TrimSuffix(at, ")"), loc)
	if err != nil {
		return nil, err
	}
	if s.Target == nil {
		return nil, fmt.Errorf("schedule has no target")
	}
	return &pendingSchedule{group: group, name: name, due: due, target: aws.ToString(s.Target.Arn), input: aws.ToString(s.Target.Input),
		deleteAfter: s.ActionAfterCompletion == schedtypes.ActionAfterCompletionDelete}, nil
}

// fire delivers a schedule's input to its SQS target, then deletes the
// schedule if it asked to be deleted after completion.
func (r *Runtime) fire(ctx context.Context, ps *pendingSchedule) error {
	url := ""
	for _, q := range r.queues {
		if q.arn == ps.target {
			url = q.url
		}
	}
	if url == "" {
		return fmt.Errorf("target %s is not a queue of the template", ps.target)
	}
	if _, err := r.sqs.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: aws.String(url), MessageBody: aws.String(ps.input)}); err != nil {
		return err
	}
	if ps.deleteAfter {
		_, _ = r.sched.DeleteSchedule(ctx, &scheduler.DeleteScheduleInput{GroupName: aws.String(ps.group), Name: aws.String(ps.name)})
	}
	return nil
}

// PendingSchedules counts the schedules waiting to fire.
func (r *Runtime) PendingSchedules(ctx context.Context) (int, error) {
	n := 0
	for _, group := range r.groups {
		p := scheduler.NewListSchedulesPaginator(r.sched, &scheduler.ListSchedulesInput{GroupName: aws.String(group)})
		for p.HasMorePages() {
			page, err := p.NextPage(ctx)
			if err != nil {
				return 0, err
			}
			n += len(page.Schedules)
		}
	}
	return n, nil
}
