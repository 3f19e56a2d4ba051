package lab

import (
	"context"
	"errors"
)

// slow is written by its helper.
func slow(ctx context.Context, t *Target, o Options) (*Report, error) {
	return nil, errors.New("lab slow: not written yet")
}
