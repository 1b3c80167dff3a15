// Package admin holds the operator actions that have no public endpoint:
// creating projects and API keys. On a deployed stack they run in the admin
// function (aws lambda invoke); locally, make run seeds the demo project
// with them.
package admin

import (
	"context"
	"strings"

	"github.com/botix/public-api/internal/apierr"
	"github.com/botix/public-api/internal/auth"
	"github.com/botix/public-api/internal/store"
)

// Request is the admin function's payload.
type Request struct {
	// Action is "create_project", "create_api_key", "revoke_api_key" or
	// "revoke_sessions".
	Action    string `json:"action"`
	Name      string `json:"name,omitempty"`
	ProjectID string `json:"project_id,omitempty"`
	// KeyID names the key to revoke (revoke_api_key) or, for
	// revoke_sessions, the key whose sessions to revoke (all the
	// project's when empty).
	KeyID string `json:"key_id,omitempty"`
	// APIKey, for create_project and create_api_key, is the key to register
	// instead of a generated one (local demo keys).
	APIKey string `json:"api_key,omitempty"`
}

// Response is the admin function's answer. APIKey is shown once: only its
// hash is stored.
type Response struct {
	Project *store.Project `json:"project,omitempty"`
	APIKey  string         `json:"api_key,omitempty"`
	KeyID   string         `json:"key_id,omitempty"`
	Revoked bool           `json:"revoked,omitempty"`
	// SessionsRevoked counts the dashboard sessions revoke_api_key and
	// revoke_sessions ended.
	SessionsRevoked *int `json:"sessions_revoked,omitempty"`
}

// Admin performs admin actions on a store.
type Admin struct {
	Store *store.Store
}

// Do performs one admin request.
func (a *Admin) Do(ctx context.Context, req Request) (Response, error) {
	switch req.Action {
	case "create_project":
		name := strings.TrimSpace(req.Name)
		if name == "" {
			return Response{}, apierr.Problems{"name": "is required"}.Err()
		}
		p, err := a.Store.CreateProject(ctx, name)
		if err != nil {
			return Response{}, err
		}
		resp, err := a.addKey(ctx, p.ID, req.APIKey)
		resp.Project = &p
		return resp, err
	case "create_api_key":
		if _, err := a.Store.GetProject(ctx, req.ProjectID); err != nil {
			return Response{}, err
		}
		return a.addKey(ctx, req.ProjectID, req.APIKey)
	case "revoke_api_key":
		n, err := a.Store.RevokeAPIKey(ctx, req.ProjectID, req.KeyID)
		if err != nil {
			return Response{}, err
		}
		return Response{KeyID: req.KeyID, Revoked: true, SessionsRevoked: &n}, nil
	case "revoke_sessions":
		if _, err := a.Store.GetProject(ctx, req.ProjectID); err != nil {
			return Response{}, err
		}
		n, err := a.Store.RevokeDashboardSessions(ctx, req.ProjectID, req.KeyID)
		if err != nil {
			return Response{}, err
		}
		return Response{KeyID: req.KeyID, SessionsRevoked: &n}, nil
	default:
		return Response{}, apierr.Problems{"action": "must be create_project, create_api_key, revoke_api_key or revoke_sessions"}.Err()
	}
}

func (a *Admin) addKey(ctx context.Context, project, key string) (Response, error) {
	if key == "" {
		key = auth.NewKey()
	}
	if !auth.WellFormed(key) {
		return Response{}, apierr.Problems{"api_key": "must be 'bx_' followed by 16-128 letters, digits, '_' or '-'"}.Err()
	}
	id, err := a.Store.AddAPIKey(ctx, project, auth.Hash(key))
	if err != nil {
		return Response{}, err
	}
	return Response{APIKey: key, KeyID: id}, nil
}
