package resgenotel

import (
	"context"
	"errors"
	"net"
	"sync"
	"sync/atomic"

	"github.com/resgen/resgen/runtime"
)

// maxEntries bounds a cache: past it, values are made on each use instead
// of kept, so a key of unexpected cardinality cannot grow memory.
const maxEntries = 512

// cache is a copy-on-write map read without locks: its keys (operations,
// status codes, retry reasons) are few and written once, read per call.
type cache[K comparable, V any] struct {
	mu sync.Mutex
	m  atomic.Pointer[map[K]V]
}

func (c *cache[K, V]) get(k K, newValue func(K) V) V {
	if m := c.m.Load(); m != nil {
		if v, ok := (*m)[k]; ok {
			return v
		}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	var old map[K]V
	if p := c.m.Load(); p != nil {
		old = *p
	}
	if v, ok := old[k]; ok {
		return v
	}
	v := newValue(k)
	if len(old) >= maxEntries {
		return v
	}
	m := map[K]V{k: v}
	for k, v := range old {
		m[k] = v
	}
	c.m.Store(&m)
	return v
}

// errorKind classifies err for error.type: a status of 400 or more is
// errStatus, as are answers whose error carries it.
func errorKind(err error) errKind {
	if err == nil {
		return errNone
	}
	var (
		se *runtime.StatusError
		de *runtime.DecodeError
		ne net.Error
	)
	switch {
	case errors.Is(err, runtime.ErrCircuitOpen):
		return errCircuitOpen
	case errors.As(err, &se):
		return errStatus
	case errors.As(err, &de):
		return errDecode
	case errors.Is(err, context.Canceled):
		return errCancelled
	case errors.Is(err, context.DeadlineExceeded), errors.Is(err, runtime.ErrAttemptTimeout),
		errors.As(err, &ne) && ne.Timeout():
		return errTimeout
	}
	return errTransport
}
