// Command resgen generates resilient Go API clients from OpenAPI specs
// annotated with x-resilience. Run "resgen help" for usage.
package main

import (
	"context"
	"os"
)

func main() {
	os.Exit(run(context.Background(), os.Args[1:], os.Stdout, os.Stderr))
}
