package model

// The names the printer (generator/emit) writes on its own, beside the
// names the model gives it. They are emit's: emit prints them, and
// build's namer keeps every name it settles clear of them, so the two
// never clash and no list mirrors another. They live here, not in emit,
// because build sits below emit. A name emit starts to declare belongs
// here first: TestEmitDeclaresOnlyReservedNames (generator) fails on a
// name emit declares that is neither the model's nor listed here.

// Package-level names of the client (emit/client.go).
const (
	ClientType       = "Client"
	OptionType       = "Option"
	NewClientFunc    = "NewClient"
	WithHTTPClient   = "WithHTTPClient"
	WithRequestEdit  = "WithRequestEditor"
	WithLogger       = "WithLogger"
	WithObserver     = "WithObserver"
	WithOverrides    = "WithOverrides"
	WithFleet        = "WithFleet"
	WithCallOptions  = "WithCallOptions"
	DefaultServerURL = "DefaultServerURL"
)

// ClientNames are the package-level names the client declares itself.
var ClientNames = []string{ClientType, OptionType, NewClientFunc, WithHTTPClient, WithRequestEdit, WithLogger, WithObserver, WithOverrides, WithFleet, WithCallOptions, DefaultServerURL}

// ClientMethods are the methods of Client besides the operations'.
var ClientMethods = []string{"Breakers", "String", "GoString", "Format"}

// ClientFields are the unexported fields of Client besides the
// operations' (Operation.OpField, Operation.SendMethod).
var ClientFields = []string{"server", "hc", "editors", "logger", "observer", "overrides", "fleet", "callOpts", "engine", "breakers", "credentials"}

// MethodLocals are the names an operation's method uses for itself: its
// receiver, context and params arguments, and its locals. A path
// parameter's argument takes none of them.
var MethodLocals = []string{"c", "ctx", "params", "body", "bodyContentType", "req", "resp", "attempts", "err", "u", "q", "raw", "out", "rd", "key", "v", "s", "ct", "mp", "ctype", "form", "keys", "x", "f", "contentType", "opts",
	// the iterator methods of a paged operation (Paging)
	"pages", "yield", "pp", "pageNext", "pageMore", "pageItem", "pageAt", "pageLimit", "pageList", "pageOK", "pageCtx", "r"}

// NewClientLocals are the locals of NewClient; the breaker and retry
// variables (BreakerInstance.Var, RetryPolicy.Var) take none of them.
var NewClientLocals = []string{"c", "e", "o", "opts", "server", "err", "u", "base"}

// ImportNames are the package names the generated file may import; no
// local or package-level name takes one.
var ImportNames = []string{"bytes", "context", "errors", "fmt", "http", "io", "json", "slog", "strconv", "strings", "time", "url", "runtime", "multipart", "maps", "iter"}

// ObjectText is the name of the local holding the text of an object path
// parameter whose argument is arg (Param.TextVar is named from it).
func ObjectText(arg string) string { return arg + "Text" }
