//go:build unix

package main

import (
	"os"
	"os/signal"
	"syscall"
	"time"
)

// reraise ends the process by sig with its default action, as if resgen
// had not caught it.
func reraise(sig os.Signal) {
	signal.Reset(sig)
	if s, ok := sig.(syscall.Signal); ok {
		syscall.Kill(syscall.Getpid(), s)
		time.Sleep(time.Second) // the signal is on its way
	}
	os.Exit(128 + 2)
}
