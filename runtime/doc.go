// Package runtime is what a user of a resgen-generated client touches:
// the call options (WithNoRetry, WithMaxAttempts, ...), the errors a call
// returns, the Observer and its events, the breaker and retry policies,
// the client's breakers (State, Metrics), Fleet for breakers shared by the
// replicas of a service, Overrides, token sources for credentials, and the
// Nullable, File and FreeForm types of generated models. Each generated
// method runs behind its operation's circuit breaker, with its retries
// inside the breaker.
//
// What only generated code and the generator call is elsewhere: package
// impl holds the engine a generated client builds and the call each method
// makes, package wire the request data and encodings a method fills. The
// engine's implementation stays in this package, beside the breakers,
// options and fleets whose internals it shares; at init this package
// registers it (one value, never changed after) for impl, which reaches it
// through interfaces. So none of it is in this package's API, and a call
// costs one interface call more than a direct one.
//
// Nothing here is global but that registration: two clients never share a
// breaker, a retry budget or a Fleet unless the caller gives both the same
// Fleet; a client given no logger logs to slog.Default(), one given no HTTP
// client sends with http.DefaultClient. A client starts no goroutine of its
// own. An open breaker arms one timer, a time.AfterFunc stopped when it
// leaves open, which moves it to half-open when WaitInOpen ends and reports
// that change (a log line and a StateChangeEvent) on the timer's
// short-lived goroutine, so a gauge fed by events is right on an idle
// client. A dropped client with an open breaker is freed when that timer
// fires, at most WaitInOpen later. A Fleet starts two goroutines when the
// first breaker joins it, one that syncs with the store every SyncInterval
// and one that listens to the store's announcements; they run, and keep the
// breakers that joined, until Fleet.Close.
//
// Semantics, where x-resilience leaves room:
//   - A logical call is one breaker sample, recorded after all its retries
//     with RecordOn; a call whose caller's context ended is not recorded.
//     Its duration, for slow calls, is the sum of its attempts (from
//     sending the request to receiving the response headers), waits
//     excluded; slow means ≥ SlowCallDuration.
//   - Windows and thresholds follow Resilience4j: rates are evaluated after
//     every recorded call, success or not, once MinimumCalls calls are in
//     the window (capped at WindowSize for count windows). A threshold ≤ 0
//     is off.
//   - Half-open admits exactly HalfOpenCalls trial calls, one attempt each;
//     once all of them are recorded, their failure and slow-call rates
//     decide: re-open if a threshold is reached, else close. (Resilience4j
//     may decide earlier when MinimumCalls < HalfOpenCalls; resgen always
//     waits for all the trials, as the contract says "all decide".)
//   - Waits: backoff.go has the exact AWS formulas; the cap applies before
//     the jitter; decorrelated jitter keeps its previous wait per call.
//     A Retry-After (429/503) is a minimum wait and is not capped by
//     MaxInterval; above MaxRetryAfter it ends the retries.
//   - A wait that would pass the deadline (caller's or TotalTimeout) is not
//     started: the call ends at once with its last result.
//   - The retry budget is Finagle's RetryBudget over 10 s, one per client,
//     shared by its operations whose policy has a Budget.
//   - Every send that reaches the wire is an attempt: Attempts,
//     MaxAttempts, the budget and the observer count what the server
//     received, and a call never makes more than MaxAttempts sends.
//     net/http's Transport sends a GET-like request again by itself when a
//     reused connection fails before any answer. Each such send is an
//     attempt (its AttemptEvent's Err is ErrResent, followed by a RetryWait
//     of 0), let through only while the policy would retry a transport
//     failure (an attempt left, RetryOn transport, budget room); the first
//     one it would not is refused and the attempt fails with ErrNotResent.
//     So no retry, a half-open trial and the last attempt are sent once. A
//     keyed request of another method is never resent by net/http. How,
//     and what it costs, is in resend.go.
//   - A body handed to the caller unread (a download's io.ReadCloser, a
//     Stream of events) is bounded by the attempt and total timeouts only
//     up to its response headers; then by the caller's context and the
//     idle timeout (WithIdleTimeout; WithReadTimeouts keeps the old
//     behaviour). A server that breaks it later makes it an error, never
//     a silent end, and one more failed call on the breaker; an SSE
//     stream of an operation with resume reconnects with Last-Event-ID
//     instead (see Stream and docs/streams.md).
//   - Errors, log lines and events never show a password of the URL or a
//     credential query parameter (RedactURL). A StatusError holds at most
//     the first 64 KiB of a body the spec does not declare.
package runtime
