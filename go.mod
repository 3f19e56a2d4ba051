module github.com/resgen/resgen

go 1.26

require (
	github.com/avast/retry-go/v4 v4.7.0
	github.com/dave/jennifer v1.7.1
	github.com/getkin/kin-openapi v0.153.0
	github.com/go-openapi/jsonpointer v0.22.5
	github.com/santhosh-tekuri/jsonschema/v6 v6.0.3
	github.com/sony/gobreaker/v2 v2.4.0
	go.uber.org/goleak v1.3.0
	go.yaml.in/yaml/v4 v4.0.0
)

require (
	github.com/go-openapi/swag/jsonname v0.25.5 // indirect
	golang.org/x/text v0.14.0 // indirect
)
