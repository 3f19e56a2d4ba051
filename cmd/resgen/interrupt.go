package main

import (
	"os"
	"os/signal"
	"sync"
	"syscall"
)

// tempCleanup removes a run's temp folders when a signal ends it: a
// Ctrl-C or a SIGTERM kills the process without running its deferred
// calls, and resgen diff's git: sides would be left behind in the temp
// folder. On the first signal the folders made so far are removed and
// the signal is raised again with its default action, so the process
// ends as it would have (a shell sees 130 for Ctrl-C, 143 for SIGTERM),
// whatever it was doing, even blocked opening a named pipe.
type tempCleanup struct {
	sigs chan os.Signal
	done chan struct{}
	wg   sync.WaitGroup

	mu   sync.Mutex
	dirs map[string]bool
}

// endSignals are the signals that end a run and that it cleans up after.
var endSignals = []os.Signal{os.Interrupt, syscall.SIGTERM, syscall.SIGHUP}

// newTempCleanup starts watching for endSignals; stop ends that.
func newTempCleanup() *tempCleanup {
	c := &tempCleanup{sigs: make(chan os.Signal, 1), done: make(chan struct{}), dirs: map[string]bool{}}
	signal.Notify(c.sigs, endSignals...)
	c.wg.Add(1)
	go func() {
		defer c.wg.Done()
		select {
		case sig := <-c.sigs:
			// The lock is kept: a folder made after this point is never
			// registered, and mkdirTemp waits here until the process
			// ends.
			c.mu.Lock()
			for dir := range c.dirs {
				os.RemoveAll(dir)
			}
			reraise(sig)
		case <-c.done:
		}
	}()
	return c
}

// mkdirTemp is os.MkdirTemp, the folder removed if a signal ends the run
// before forget.
func (c *tempCleanup) mkdirTemp(pattern string) (string, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	dir, err := os.MkdirTemp("", pattern)
	if err == nil {
		c.dirs[dir] = true
	}
	return dir, err
}

// forget is called once dir is removed.
func (c *tempCleanup) forget(dir string) {
	c.mu.Lock()
	delete(c.dirs, dir)
	c.mu.Unlock()
}

// stop stops watching: a signal after it has its default action.
func (c *tempCleanup) stop() {
	signal.Stop(c.sigs)
	close(c.done)
	c.wg.Wait()
}
