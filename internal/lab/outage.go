package lab

import (
	"context"
	"errors"
)

// outage is written by its helper.
func outage(ctx context.Context, t *Target, o Options) (*Report, error) {
	return nil, errors.New("lab outage: not written yet")
}
