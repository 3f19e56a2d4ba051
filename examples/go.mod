module github.com/resgen/resgen/examples

go 1.26.0

tool github.com/resgen/resgen/cmd/resgen

require (
	github.com/resgen/resgen v0.0.0
	github.com/resgen/resgen/otel v0.0.0-00010101000000-000000000000
	go.opentelemetry.io/otel/sdk v1.47.0
	go.opentelemetry.io/otel/sdk/metric v1.47.0
	go.yaml.in/yaml/v4 v4.0.0
)

require (
	github.com/avast/retry-go/v4 v4.7.0 // indirect
	github.com/cespare/xxhash/v2 v2.3.0 // indirect
	github.com/dave/jennifer v1.7.1 // indirect
	github.com/getkin/kin-openapi v0.153.0 // indirect
	github.com/go-logr/logr v1.4.4 // indirect
	github.com/go-logr/stdr v1.2.2 // indirect
	github.com/go-openapi/jsonpointer v0.22.5 // indirect
	github.com/go-openapi/swag/jsonname v0.25.5 // indirect
	github.com/google/uuid v1.6.0 // indirect
	github.com/santhosh-tekuri/jsonschema/v6 v6.0.3 // indirect
	github.com/sony/gobreaker/v2 v2.4.0 // indirect
	go.opentelemetry.io/auto/sdk v1.2.1 // indirect
	go.opentelemetry.io/otel v1.47.0 // indirect
	go.opentelemetry.io/otel/log v1.47.0 // indirect
	go.opentelemetry.io/otel/metric v1.47.0 // indirect
	go.opentelemetry.io/otel/trace v1.47.0 // indirect
	golang.org/x/sys v0.48.0 // indirect
	golang.org/x/text v0.14.0 // indirect
)

// resgen is not published: the example builds against this checkout.
replace github.com/resgen/resgen => ../

// The OpenTelemetry observer's module (cmd/dashboard/otel.go, build tag
// resgen_otel until ../otel is merged).
replace github.com/resgen/resgen/otel => ../otel
