package botix

import (
	"context"
	"time"
)

// SetSleep replaces c's wait between attempts (tests record the delays
// instead of waiting them).
func SetSleep(c *Client, f func(ctx context.Context, d time.Duration) error) { c.sleep = f }

// PolicyOf is the policy c applies.
func PolicyOf(c *Client) RetryPolicy { return c.policy }
