// Package resgenredis keeps the breakers of a service's replicas in Redis,
// so that breakers with the same name share one window and one state
// across the fleet (runtime.FleetStore). It is a module of its own so that
// go-redis is in the dependency graph of those who use it only.
//
// Each breaker has two keys, `<prefix>:{<key>}:s` (its state, a hash) and
// `<prefix>:{<key>}:w` (its window): the hash tag keeps both in one cluster
// slot, so that one Lua script can change them atomically. Every change of
// state is published, inside the same script, on `<prefix>:fleet`. The
// script needs Redis 6.2 or later (LPOP with a count); the tests run on
// Debian's redis-server 7.0, standalone and as a one-node cluster.
//
// A Sync's outcomes must count at most once (a Fleet drops the counts of
// a failed Sync rather than send them again). go-redis retries a pipeline
// whose connection broke after it was sent, which could run a script
// twice: with the Fleet's deadline on every Sync a timeout is not
// retried, but a connection reset is, so give the Store a client with
// MaxRetries: -1 where a failover may replay a pipeline.
//
// The keys and the channel are untrusted input: any client of the server
// may write them. The script range-checks every stored value against the
// breaker's own policy before it uses it (docs/fleet.md, step 0 of the
// state machine), Watch skips every message it cannot decode strictly, and
// the runtime's Fleet takes a message only as a hint to Sync. See
// docs/fleet.md, "On a shared Redis", for the ACL user to give a fleet.
package resgenredis

import (
	"context"
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/redis/go-redis/v9"
	"github.com/resgen/resgen/runtime"
)

//go:embed sync.lua
var syncSource string

// syncScript is immutable apart from its hash cache: one for every Store.
var syncScript = redis.NewScript(syncSource)

const (
	// MaxPrefix is the longest prefix NewStore takes.
	MaxPrefix = 200
	// maxKeyPart is the longest breaker key used as is in the Redis keys
	// and messages; a longer one goes by its digest (see keyPart).
	maxKeyPart = 512
	// maxMessage bounds a message Watch decodes: a state with a key of
	// maxKeyPart bytes, each escaped, is well below it.
	maxMessage = 8 << 10
	// stateTTL is how long an idle breaker's state lives; windowMargin is
	// what a time window lives beyond its duration.
	stateTTL     = 24 * time.Hour
	windowMargin = time.Minute
	// watchPing is how long Watch waits for a message before it pings
	// the server, and then for the answer before it gives up: a partition
	// that drops packets without closing the connection ends Watch.
	watchPing = 5 * time.Second
)

// A Store is a runtime.FleetStore in Redis. It is safe for concurrent use.
type Store struct {
	rdb     redis.UniversalClient
	prefix  string
	channel string

	// digests maps the digest of each key this Store has synced by its
	// digest back to the key, for the messages that name it so (one entry
	// per such breaker of this replica).
	mu      sync.Mutex
	digests map[string]string

	badMessages atomic.Uint64
	watchPing   time.Duration // the constant; shorter in tests
}

var _ runtime.FleetStore = (*Store)(nil)

// NewStore returns a Store that keeps its breakers under prefix: replicas
// with the same prefix (and Redis) share breakers, others do not. The
// prefix is 1 to MaxPrefix bytes of UTF-8 without control characters or
// braces (a brace would change the keys' hash tag and could make two
// prefixes' keys meet).
func NewStore(rdb redis.UniversalClient, prefix string) (*Store, error) {
	if rdb == nil {
		return nil, errors.New("resgenredis: nil Redis client")
	}
	if err := checkPrefix(prefix); err != nil {
		return nil, err
	}
	return &Store{rdb: rdb, prefix: prefix, channel: prefix + ":fleet", digests: map[string]string{},
		watchPing: watchPing}, nil
}

// NewFleet is NewStore and runtime.NewFleet: one replica's connection to
// the breakers its fleet shares under prefix. Close the Fleet when done;
// the Redis client stays the caller's.
func NewFleet(rdb redis.UniversalClient, prefix string, opt runtime.FleetOptions) (*runtime.Fleet, error) {
	s, err := NewStore(rdb, prefix)
	if err != nil {
		return nil, err
	}
	return runtime.NewFleet(s, opt), nil
}

func checkPrefix(p string) error {
	switch {
	case p == "":
		return errors.New("resgenredis: empty key prefix")
	case len(p) > MaxPrefix:
		return fmt.Errorf("resgenredis: key prefix of %d bytes, more than %d", len(p), MaxPrefix)
	case !utf8.ValidString(p):
		return errors.New("resgenredis: key prefix is not UTF-8")
	}
	for _, r := range p {
		if r < 0x20 || r == 0x7f || r == '{' || r == '}' || (r >= 0x80 && r < 0xa0) {
			return fmt.Errorf("resgenredis: key prefix %q has %q (no control characters or braces)", p, r)
		}
	}
	return nil
}

// BadMessages is how many messages on the prefix's channel Watch skipped
// because they were not states it could decode.
func (s *Store) BadMessages() uint64 { return s.badMessages.Load() }

// keyPart is how a breaker key appears in the Redis keys and messages:
// as is, or as "~" and its digest when it is long or not UTF-8 (a JSON
// message could not carry it), or empty or starts with "}" (the hash tag
// "{}" would be empty, and Redis Cluster would hash the whole key: the two
// keys of the breaker would land in different slots). No key used as is
// starts with "~", so two keys never share a part.
func (s *Store) keyPart(key string) string {
	if key != "" && len(key) <= maxKeyPart && key[0] != '}' && key[0] != '~' && utf8.ValidString(key) {
		return key
	}
	sum := sha256.Sum256([]byte(key))
	part := "~" + hex.EncodeToString(sum[:])
	s.mu.Lock()
	s.digests[part] = key
	s.mu.Unlock()
	return part
}

// key resolves a message's key part; ok is false for a digest this Store
// never synced (a breaker this replica does not have).
func (s *Store) key(part string) (string, bool) {
	if !strings.HasPrefix(part, "~") {
		return part, true
	}
	s.mu.Lock()
	key, ok := s.digests[part]
	s.mu.Unlock()
	return key, ok
}

// Sync runs the script once per request, all in one pipeline (one round
// trip). Requests the server did not know the script for (NOSCRIPT: not
// run) are sent again with EVAL, which loads it: one round trip more.
func (s *Store) Sync(ctx context.Context, reqs []runtime.FleetSync) ([]runtime.FleetState, error) {
	if len(reqs) == 0 {
		return nil, nil
	}
	keys := make([][]string, len(reqs))
	args := make([][]any, len(reqs))
	for i := range reqs {
		keys[i], args[i] = s.request(&reqs[i])
	}
	cmds := make([]*redis.Cmd, len(reqs))
	pipe := s.rdb.Pipeline()
	hash := syncScript.Hash()
	for i := range reqs {
		cmds[i] = pipe.EvalSha(ctx, hash, keys[i], args[i]...)
	}
	if _, err := pipe.Exec(ctx); err != nil {
		again := false
		for i, c := range cmds {
			if err := c.Err(); err != nil {
				if !redis.HasErrorPrefix(err, "NOSCRIPT") {
					return nil, fmt.Errorf("resgenredis: sync: %w", err)
				}
				cmds[i] = pipe.Eval(ctx, syncSource, keys[i], args[i]...)
				again = true
			}
		}
		if !again {
			return nil, fmt.Errorf("resgenredis: sync: %w", err)
		}
		if _, err := pipe.Exec(ctx); err != nil {
			return nil, fmt.Errorf("resgenredis: sync: %w", err)
		}
	}
	out := make([]runtime.FleetState, len(reqs))
	for i, c := range cmds {
		v, err := c.Int64Slice()
		if err != nil || len(v) != 11 {
			return nil, fmt.Errorf("resgenredis: sync: unexpected answer %v (%v)", c.Val(), err)
		}
		out[i] = runtime.FleetState{
			Key: reqs[i].Key, Gen: uint64(v[0]), State: runtime.State(v[1]),
			OpenFor: time.Duration(v[2]) * time.Millisecond, Granted: int(v[3]),
			Calls: v[4], Failed: v[5], Slow: v[6], Cause: runtime.FleetCause(v[7]),
			TrialCalls: v[8], TrialFailed: v[9], TrialSlow: v[10],
		}
	}
	return out, nil
}

// request is the script's keys and arguments for one request (sync.lua
// lists them). The policy is bounded here as the runtime bounds a local
// breaker's, so that no request makes the script loop for long.
func (s *Store) request(r *runtime.FleetSync) ([]string, []any) {
	p := r.Policy
	part := s.keyPart(r.Key)
	base := s.prefix + ":{" + part + "}:"
	cw, tws := 0, 0
	windowTTL := stateTTL
	if p.CountWindow > 0 || p.TimeWindow <= 0 {
		cw = min(max(p.CountWindow, 1), runtime.MaxWindowSize)
	} else {
		tw := min(p.TimeWindow, runtime.MaxWindowDuration)
		tws = int((tw + time.Second - 1) / time.Second)
		windowTTL = max(tw, time.Minute) + windowMargin
	}
	minCalls := max(p.MinimumCalls, 1)
	if cw > 0 {
		minCalls = min(minCalls, cw)
	}
	half := min(max(p.HalfOpenCalls, 1), runtime.MaxHalfOpenCalls)
	return []string{base + "s", base + "w"}, []any{
		strconv.FormatUint(r.Gen, 10), cw, tws, minCalls,
		pct(p.FailureRateThreshold), pct(p.SlowCallRateThreshold),
		max(p.WaitInOpen.Milliseconds(), 1), half, max(p.PermitLease.Milliseconds(), 0),
		count(r.Closed.OK), count(r.Closed.Failed), count(r.Closed.Slow), count(r.Closed.FailedSlow),
		count(r.Trials.OK), count(r.Trials.Failed), count(r.Trials.Slow), count(r.Trials.FailedSlow),
		max(r.Returned, 0), min(max(r.Want, 0), half),
		part, s.channel, stateTTL.Milliseconds(), windowTTL.Milliseconds(),
	}
}

// pct is a threshold for the script: ≤ 0 or NaN is off; a threshold of
// +Inf, never reached, stays so as a huge one.
func pct(f float64) string {
	switch {
	case !(f > 0):
		return "0"
	case f > 1e300:
		return "1e300"
	}
	return strconv.FormatFloat(f, 'g', -1, 64)
}

// count bounds an outcome count to what the script's doubles hold exactly.
func count(n int64) int64 { return min(max(n, 0), 1<<50) }

// message is a FleetState on the wire: FleetState's own field names (a
// FleetState marshalled with encoding/json decodes the same), without
// Granted, which a message never carries.
type message struct {
	Key                 string
	Gen                 uint64
	State               runtime.State
	OpenFor             time.Duration
	Calls, Failed, Slow int64
	Cause               runtime.FleetCause

	TrialCalls, TrialFailed, TrialSlow int64
}

// decode checks a message strictly: any field out of its range and the
// message is skipped (unknown fields are ignored, for later versions).
func (s *Store) decode(payload string) (runtime.FleetState, bool) {
	if len(payload) > maxMessage {
		return runtime.FleetState{}, false
	}
	var m message
	if json.Unmarshal([]byte(payload), &m) != nil || m.Key == "" || m.Gen == 0 ||
		m.State > runtime.StateHalfOpen || m.Cause > runtime.FleetCauseTrials ||
		m.OpenFor < 0 || m.Calls < 0 || m.Failed < 0 || m.Slow < 0 || m.Failed > m.Calls || m.Slow > m.Calls ||
		m.TrialCalls < 0 || m.TrialFailed < 0 || m.TrialSlow < 0 || m.TrialFailed > m.TrialCalls || m.TrialSlow > m.TrialCalls {
		return runtime.FleetState{}, false
	}
	key, ok := s.key(m.Key)
	if !ok {
		return runtime.FleetState{}, false
	}
	return runtime.FleetState{Key: key, Gen: m.Gen, State: m.State, OpenFor: m.OpenFor,
		Calls: m.Calls, Failed: m.Failed, Slow: m.Slow, Cause: m.Cause,
		TrialCalls: m.TrialCalls, TrialFailed: m.TrialFailed, TrialSlow: m.TrialSlow}, true
}

// Watch subscribes to the prefix's channel and calls fn with each state
// published there. It returns nil when ctx ends, and the error when the
// subscription fails (the server went away, or did not answer a ping):
// go-redis would resubscribe by itself, but the messages in between
// would be lost, and the caller's ready (called again on the next Watch)
// is what makes up for them.
func (s *Store) Watch(ctx context.Context, ready func(), fn func(runtime.FleetState)) error {
	ps := s.rdb.Subscribe(ctx, s.channel)
	defer ps.Close()
	// Receive does not watch ctx: closing the subscription ends it.
	stop := context.AfterFunc(ctx, func() { _ = ps.Close() })
	defer stop()
	fail := func(err error) error {
		if ctx.Err() != nil {
			return nil
		}
		return fmt.Errorf("resgenredis: watch: %w", err)
	}
	for subscribed := false; !subscribed; {
		msg, err := ps.ReceiveTimeout(ctx, s.watchPing)
		if err != nil {
			return fail(err)
		}
		if sub, ok := msg.(*redis.Subscription); ok && sub.Kind == "subscribe" && sub.Channel == s.channel {
			subscribed = true
		}
	}
	ready()
	pinged := false
	for {
		msg, err := ps.ReceiveTimeout(ctx, s.watchPing)
		if err != nil {
			var nerr interface{ Timeout() bool }
			if !pinged && errors.As(err, &nerr) && nerr.Timeout() && ctx.Err() == nil {
				if err := ps.Ping(ctx); err != nil {
					return fail(err)
				}
				pinged = true
				continue
			}
			return fail(err)
		}
		pinged = false
		m, ok := msg.(*redis.Message)
		if !ok {
			continue // a pong or a subscription change
		}
		if m.Channel != s.channel {
			s.badMessages.Add(1)
			continue
		}
		if st, ok := s.decode(m.Payload); ok {
			fn(st)
		} else {
			s.badMessages.Add(1)
		}
	}
}
