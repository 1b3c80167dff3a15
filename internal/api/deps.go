package api

import (
	"net"
	"time"

	"github.com/botix/public-api/internal/clock"
	"github.com/botix/public-api/internal/pagination"
	"github.com/botix/public-api/internal/store"
	"github.com/botix/public-api/internal/webhook"
	"github.com/botix/public-api/internal/webhook/addrguard"
)

// Deps is what every handler set of the API works with. Each handler set
// embeds it, so that the wiring (package app) builds any of them the same
// way.
type Deps struct {
	Store *store.Store
	// Pager is set for list routes only (they alone get the cursor keys).
	Pager *pagination.Pager
	// Guard and Resolver check webhook URLs.
	Guard    addrguard.Guard
	Resolver *net.Resolver
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// RecoveryPace paces the recoveries the recover route starts (set for
	// it only: WEBHOOK_RECOVERY_PACE).
	RecoveryPace webhook.RecoveryPace
}

// Use sets a handler set's dependencies.
func (d *Deps) Use(deps Deps) { *d = deps }

func (d *Deps) now() time.Time {
	return clock.Or(d.Now)()
}
