package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"time"

	"github.com/botix/public-api/sdk/go/botix"
)

// listParams calls each list method once with every field of its params
// struct set (found by reflection, so a field added to the struct is
// sent too) and reports the route's path and how many fields it set; the
// harness compares the query each request carried with the document.
func listParams(ctx context.Context, line []byte, _ *bufio.Reader) (any, error) {
	var p struct {
		InspectorID string `json:"inspector_id"`
	}
	if err := json.Unmarshal(line, &p); err != nil {
		return nil, err
	}
	c := client(params{MaxAttempts: 1})
	type call struct {
		Path string `json:"path"`
		Set  int    `json:"set"`
	}
	var calls []call
	record := func(path string, params any, do func()) error {
		n, err := fillStruct(params)
		if err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		do() // the API's answer (a 400 for a value it refuses) does not matter: the query sent does
		calls = append(calls, call{path, n})
		return nil
	}
	var (
		contacts   botix.ContactListParams
		messages   botix.MessageListParams
		endpoints  botix.ListParams
		deliveries botix.DeliveryListParams
		stats      botix.StatsParams
		requests   botix.ListParams
		events     botix.EventListParams
		sessions   botix.ListParams
	)
	steps := []struct {
		path   string
		params any
		do     func()
	}{
		{"/public/v1/contacts", &contacts, func() { _, _ = c.Contacts.List(ctx, contacts) }},
		{"/public/v1/messages", &messages, func() { _, _ = c.Messages.List(ctx, messages) }},
		{"/public/v1/webhook-endpoints", &endpoints, func() { _, _ = c.WebhookEndpoints.List(ctx, endpoints) }},
		{"/public/v1/webhook-deliveries", &deliveries, func() { _, _ = c.Deliveries.List(ctx, deliveries) }},
		{"/public/v1/webhook-deliveries/stats", &stats, func() { _, _ = c.Deliveries.Stats(ctx, stats) }},
		{"/public/v1/inspectors/{id}/requests", &requests, func() { _, _ = c.Inspectors.Requests(ctx, p.InspectorID, requests) }},
		{"/public/v1/events", &events, func() { _, _ = c.Events.List(ctx, events) }},
		{"/public/v1/dashboard-sessions", &sessions, func() { _, _ = c.DashboardSessions.List(ctx, sessions) }},
	}
	for _, s := range steps {
		if err := record(s.path, s.params, s.do); err != nil {
			return nil, err
		}
	}
	return map[string]any{"calls": calls}, nil
}

// fillStruct sets every exported field of the struct v points to
// (embedded structs included) to a value that is not zero, and returns how
// many it set.
func fillStruct(v any) (int, error) {
	n := 0
	var walk func(s reflect.Value) error
	walk = func(s reflect.Value) error {
		for i := range s.NumField() {
			f, sf := s.Field(i), s.Type().Field(i)
			if !sf.IsExported() {
				continue
			}
			switch {
			case sf.Anonymous && f.Kind() == reflect.Struct:
				if err := walk(f); err != nil {
					return err
				}
				continue
			case f.Type() == reflect.TypeOf(time.Time{}):
				f.Set(reflect.ValueOf(time.Date(2026, 11, 29, 8, 0, 0, 0, time.UTC)))
			case f.Kind() == reflect.String:
				f.SetString("x")
			case f.Kind() == reflect.Int:
				f.SetInt(1)
			case f.Kind() == reflect.Bool:
				f.SetBool(true)
			default:
				return fmt.Errorf("no value for %s %s", sf.Name, f.Type())
			}
			n++
		}
		return nil
	}
	return n, walk(reflect.ValueOf(v).Elem())
}
