package runtime

import (
	"go/ast"
	"go/build"
	"go/doc"
	"go/parser"
	"go/token"
	"path/filepath"
	"slices"
	"testing"
)

// userAPI is every exported name of the package, methods as Type.Method:
// what a user of a generated client calls or reads. What only generated
// code or the generator calls belongs in package impl (the engine, its
// operations, the call, policy decoding) or wire (request data,
// encodings). A name added here must be one a user needs; a name removed
// here is a change users see.
var userAPI = []string{
	// Call options: given per call, or to every call through the
	// client's WithCallOptions; opaque, printed without secrets.
	"CallOption", "CallOption.Format", "CallOption.GoString", "CallOption.String",
	"WithAttemptHeader", "WithAttemptTimeout", "WithHeader", "WithMaxAttempts",
	"WithMaxBody", "WithMaxErrorBody", "WithNoRetry", "WithRequestEditor", "WithTotalTimeout",
	"DefaultMaxErrorBody",
	"WithIdleTimeout", "WithReadTimeouts", "WithMaxEventSize", "DefaultMaxEventSize",

	// Event streams: the typed stream a generated response holds, its
	// events, and how it ends.
	"Stream", "Stream.Events", "Stream.Close", "Event",
	"StreamError", "StreamError.Error", "StreamError.Unwrap",
	"EventTooLargeError", "EventTooLargeError.Error", "ErrIdleTimeout",

	// What the client's options take: the HTTP client and request
	// editors.
	"Doer", "RequestEditor",

	// Errors a call returns, and the sentinels errors.Is matches.
	"BodyTooLargeError", "BodyTooLargeError.Error",
	"CallError", "CallError.Error", "CallError.Unwrap",
	"CircuitOpenError", "CircuitOpenError.Error", "CircuitOpenError.Is",
	"DecodeError", "DecodeError.Error", "DecodeError.Unwrap",
	"HeaderError", "HeaderError.Error",
	"RequestError", "RequestError.Error",
	"StatusError", "StatusError.Error", "StatusError.Unwrap",
	"ErrAttemptTimeout", "ErrAttemptsExhausted", "ErrBodyNotReplayable", "ErrBudgetSpent", "ErrCircuitOpen",
	"ErrDeadline", "ErrEmptyBody", "ErrHalfOpenTrial", "ErrNotResent", "ErrNotRetrySafe",
	"ErrNotRetryable", "ErrResent", "ErrRetryAfterTooLong", "ErrRetryDisabled", "ErrRetryOff",

	// The observer (metrics, tracing) and its events.
	"Observer", "NopObserver", "NopObserver.Attempt", "NopObserver.BreakerStateChange",
	"NopObserver.CallEnd", "NopObserver.CallStart", "NopObserver.Rejected", "NopObserver.RetryWait",
	"SlogObserver", "NewSlogObserver", "SlogObserver.Attempt", "SlogObserver.BreakerStateChange",
	"SlogObserver.CallEnd", "SlogObserver.CallStart", "SlogObserver.Rejected", "SlogObserver.RetryWait",
	"AttemptEvent", "CallEndEvent", "CallStartEvent", "RejectionEvent", "RetryEvent", "StateChangeEvent",

	// The typed policies a generated client writes above its methods and
	// a user may read (Breaker.Policy) or build for tests; their enums,
	// defaults and the contract's wording of an outcome set.
	"BreakerPolicy", "DefaultBreakerPolicy", "RetryPolicy", "DefaultRetryPolicy",
	"Match", "Match.Tokens", "Budget",
	"WindowType", "CountWindow", "TimeWindow", "WindowType.String", "WindowType.GoString", // GoString: %#v names the constant, as generated code writes it
	"Backoff", "ExponentialBackoff", "ConstantBackoff", "Backoff.String", "Backoff.GoString",
	"Jitter", "FullJitter", "NoJitter", "EqualJitter", "DecorrelatedJitter", "Jitter.String", "Jitter.GoString",

	// The limits a policy or an overrides file may hit.
	"MaxWindowSize", "MaxWindowDuration", "MaxHalfOpenCalls", "MaxPolicyDuration",
	"MaxRetryAttempts", "MaxOverridesBytes",

	// The client's breakers (Client.Breakers), for health checks and
	// metrics.
	"Breaker", "Breaker.Metrics", "Breaker.Name", "Breaker.Policy", "Breaker.State",
	"BreakerMetrics", "State", "StateClosed", "StateOpen", "StateHalfOpen", "State.String",

	// Breakers shared by the replicas of a service (WithFleet), and the
	// store interface the redis module implements, with its data.
	"Fleet", "NewFleet", "Fleet.Close", "FleetOptions",
	"FleetStore", "NewMemoryFleetStore", "FleetSync", "FleetCounts", "FleetCounts.Calls",
	"FleetPolicy", "FleetState", "FleetCause", "FleetCauseNone", "FleetCauseWindow",
	"FleetCauseWait", "FleetCauseTrials",

	// Overrides of the generated policies (WithOverrides).
	"Overrides", "LoadOverrides", "ParseOverrides",

	// Credentials for the client's security options.
	"TokenSource", "TokenFunc", "TokenFunc.Token",
	"StaticToken", "StaticToken.Token", "StaticToken.String", "StaticToken.GoString", "StaticToken.Format",

	// Types of generated models: nullable fields, multipart files,
	// free-form objects.
	"Nullable", "Null", "Value", "Nullable.Get", "Nullable.IsNull", "Nullable.IsSet",
	"Nullable.IsZero", "Nullable.MarshalJSON", "Nullable.UnmarshalJSON",
	"File", "Opener", "FreeForm", "FreeForm.UnmarshalJSON",

	// URLs as the runtime shows them in errors, logs and events.
	"RedactURL",
}

// TestExportedNamesAreTheUserAPI fails when the package exports a name
// userAPI does not list (an addition to review: is it a user's?) or no
// longer exports one it lists (so the list stays true). It reads the
// package's source as a normal build does (no test files, no build tags).
func TestExportedNamesAreTheUserAPI(t *testing.T) {
	got := exportedNames(t, ".")
	want := slices.Sorted(slices.Values(userAPI))
	if dup := slices.Compact(slices.Clone(want)); len(dup) != len(want) {
		t.Fatalf("userAPI lists a name twice")
	}
	for _, n := range got {
		if !slices.Contains(want, n) {
			t.Errorf("exported but not in userAPI: %s (a user's? else move it to package impl or wire)", n)
		}
	}
	for _, n := range want {
		if !slices.Contains(got, n) {
			t.Errorf("in userAPI but not exported: %s", n)
		}
	}
}

// exportedNames returns the exported names of the package in dir, as go
// doc shows them, methods as Type.Method, sorted.
func exportedNames(t *testing.T, dir string) []string {
	t.Helper()
	bp, err := build.Default.ImportDir(dir, 0)
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	var files []*ast.File
	for _, name := range bp.GoFiles {
		f, err := parser.ParseFile(fset, filepath.Join(dir, name), nil, parser.ParseComments)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	p, err := doc.NewFromFiles(fset, files, bp.ImportPath)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	values := func(vs []*doc.Value) {
		for _, v := range vs {
			names = append(names, v.Names...)
		}
	}
	funcs := func(fs []*doc.Func) {
		for _, f := range fs {
			names = append(names, f.Name)
		}
	}
	values(p.Consts)
	values(p.Vars)
	funcs(p.Funcs)
	for _, ty := range p.Types {
		names = append(names, ty.Name)
		values(ty.Consts)
		values(ty.Vars)
		funcs(ty.Funcs)
		for _, m := range ty.Methods {
			names = append(names, ty.Name+"."+m.Name)
		}
	}
	slices.Sort(names)
	return names
}
