package webhook

import "context"

// current reads an endpoint as it is now, past this instance's cache, for
// an attempt about to be sent: an endpoint deleted (or disabled, or
// re-pointed) before the attempt is sent is seen, whatever the cache
// held when the attempt was admitted. A strongly consistent read per
// attempt is the price of "after DELETE returns, nothing more is sent";
// admission keeps reading through the cache. A bulk lane attempt's read
// takes one of the instance's bulk call slots, as its writes do.
func (d *Deliverer) current(ctx context.Context, project, id string, bulk bool) (Endpoint, error) {
	var ep Endpoint
	err := d.call(ctx, bulk, func() (err error) {
		ep, err = d.Endpoints.Get(ctx, project, id)
		return err
	})
	if err != nil {
		return ep, err
	}
	d.remember(project, ep)
	return ep, nil
}
