package lab

import (
	"context"
	"errors"
)

// storm is written by its helper.
func storm(ctx context.Context, t *Target, o Options) (*Report, error) {
	return nil, errors.New("lab storm: not written yet")
}
