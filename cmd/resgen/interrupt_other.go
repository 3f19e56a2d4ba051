//go:build !unix

package main

import "os"

// reraise ends the process as Ctrl-C would (exit status 130).
func reraise(os.Signal) { os.Exit(128 + 2) }
