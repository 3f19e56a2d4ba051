package resgenredis_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/resgen/resgen/redis/redistest"
	"github.com/sony/gobreaker/v2"
)

// gobreakerStore is the baseline of the benchmarks: a
// gobreaker.SharedDataStore over go-redis for gobreaker's
// DistributedCircuitBreaker. sony's own store (module
// github.com/sony/gobreaker/v2/redis, on redsync) is not served by the Go
// module proxy, so this one does what redsync does on one instance: Lock
// is SET key token NX PX 5000 with a random token, Unlock deletes the key
// only if it still holds that token (a Lua compare-and-delete, so a lock
// that expired and was taken by another replica is not released), and
// GetData/SetData are GET/SET. DistributedCircuitBreaker itself polls a
// refused Lock every 500 ms for up to 5 s (distributed_gobreaker.go).
type gobreakerStore struct {
	rdb    redis.UniversalClient
	prefix string

	mu     sync.Mutex
	tokens map[string]string // the token of each lock this replica holds

	// released is set by the throughput benchmark at the end of its wall
	// time: Lock then grants at once without Redis, so the goroutines
	// polling in gobreaker's lock loop leave after their current 500 ms
	// sleep instead of polling on for up to 5 s (their calls are not
	// counted).
	released atomic.Bool
}

func newGobreakerStore(rdb redis.UniversalClient, prefix string) *gobreakerStore {
	return &gobreakerStore{rdb: rdb, prefix: prefix + ":", tokens: map[string]string{}}
}

var errLocked = errors.New("gobreaker store: locked by another replica")

// unlockScript deletes the lock only if it is still ours.
var unlockScript = redis.NewScript(`if redis.call("GET", KEYS[1]) == ARGV[1] then return redis.call("DEL", KEYS[1]) end return 0`)

func (s *gobreakerStore) Lock(name string) error {
	if s.released.Load() {
		return nil
	}
	var b [16]byte
	rand.Read(b[:])
	token := hex.EncodeToString(b[:])
	ok, err := s.rdb.SetNX(context.Background(), s.prefix+name, token, gobreakerLockTTL).Result()
	if err != nil {
		return err
	}
	if !ok {
		return errLocked
	}
	s.mu.Lock()
	s.tokens[name] = token
	s.mu.Unlock()
	return nil
}

func (s *gobreakerStore) Unlock(name string) error {
	if s.released.Load() {
		return nil
	}
	s.mu.Lock()
	token, ok := s.tokens[name]
	delete(s.tokens, name)
	s.mu.Unlock()
	if !ok {
		return errors.New("gobreaker store: unlock of a lock not held")
	}
	n, err := unlockScript.Run(context.Background(), s.rdb, []string{s.prefix + name}, token).Int()
	if err == nil && n == 0 {
		err = errors.New("gobreaker store: the lock had expired")
	}
	return err
}

func (s *gobreakerStore) GetData(name string) ([]byte, error) {
	b, err := s.rdb.Get(context.Background(), s.prefix+name).Bytes()
	if err == redis.Nil {
		return nil, nil
	}
	return b, err
}

func (s *gobreakerStore) SetData(name string, data []byte) error {
	return s.rdb.Set(context.Background(), s.prefix+name, data, 0).Err()
}

// gobreakerLockTTL is redsync's default expiry, which sony's store uses.
const gobreakerLockTTL = 5 * time.Second

func newRedisClient(t testing.TB, addr string) *redis.Client {
	rdb := redis.NewClient(&redis.Options{Addr: addr})
	t.Cleanup(func() { rdb.Close() })
	return rdb
}

// TestGobreakerStoreLock: the lock is exclusive across clients, and a
// replica cannot release another's lock.
func TestGobreakerStoreLock(t *testing.T) {
	srv := redistest.Start(t)
	a := newGobreakerStore(newRedisClient(t, srv.Addr()), "lock")
	b := newGobreakerStore(newRedisClient(t, srv.Addr()), "lock")
	if err := a.Lock("m"); err != nil {
		t.Fatal(err)
	}
	if err := b.Lock("m"); err != errLocked {
		t.Fatalf("second Lock: %v, want errLocked", err)
	}
	b.tokens["m"] = "forged"
	if err := b.Unlock("m"); err == nil {
		t.Fatal("Unlock with another token succeeded")
	}
	if err := b.Lock("m"); err != errLocked {
		t.Fatalf("Lock after a foreign Unlock: %v, want errLocked", err)
	}
	if err := a.Unlock("m"); err != nil {
		t.Fatal(err)
	}
	if err := b.Lock("m"); err != nil {
		t.Fatalf("Lock after release: %v", err)
	}
}

// TestGobreakerDistributedShares: the baseline is a working shared
// breaker: failures through one replica's DistributedCircuitBreaker open
// the other's, which then refuses without calling.
func TestGobreakerDistributedShares(t *testing.T) {
	srv := redistest.Start(t)
	newDCB := func() *gobreaker.DistributedCircuitBreaker[struct{}] {
		dcb, err := gobreaker.NewDistributedCircuitBreaker[struct{}](
			newGobreakerStore(newRedisClient(t, srv.Addr()), "share"), gobreaker.Settings{Name: "downstream"})
		if err != nil {
			t.Fatal(err)
		}
		return dcb
	}
	a, b := newDCB(), newDCB()
	boom := errors.New("boom")
	for range 6 { // gobreaker's default: open after more than 5 consecutive failures
		if _, err := a.Execute(func() (struct{}, error) { return struct{}{}, boom }); err != boom {
			t.Fatalf("failing call: %v", err)
		}
	}
	called := false
	_, err := b.Execute(func() (struct{}, error) { called = true; return struct{}{}, nil })
	if err != gobreaker.ErrOpenState || called {
		t.Fatalf("the other replica: err %v, called %v; want ErrOpenState without a call", err, called)
	}
}
