// Package clock reads the injectable clocks of the domain: a Now field of
// type func() time.Time that tests set and production leaves nil, meaning
// the wall clock. One helper says so, instead of one hand-written method
// per type.
package clock

import "time"

// Or returns now, or time.Now when now is nil.
func Or(now func() time.Time) func() time.Time {
	if now != nil {
		return now
	}
	return time.Now
}
