// Package examples holds a service that calls two downstreams through
// clients resgen generates from resgen.yaml.
package examples

//go:generate go tool resgen generate
