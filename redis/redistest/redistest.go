// Package redistest starts a real redis-server for tests: on a free
// loopback port, persistence off, killed at the test's cleanup.
package redistest

import (
	"bytes"
	"context"
	"errors"
	"net"
	"os"
	"os/exec"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// A Server is one redis-server process (or none, between Kill and
// Restart) on a fixed loopback port.
type Server struct {
	t    testing.TB
	bin  string
	port int

	mu   sync.Mutex
	cmd  *exec.Cmd
	done chan struct{} // closed when cmd has exited
}

// Start starts redis-server on a free loopback port and waits until it
// answers PING. Without redis-server on PATH the test is skipped, unless
// the environment variable CI is set (.ci/run sets it): CI never skips.
func Start(t testing.TB) *Server {
	t.Helper()
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("redistest: redis-server not found (CI must install it: .ci/run): %v", err)
		}
		t.Skipf("redistest: redis-server not found: %v", err)
	}
	s := &Server{t: t, bin: bin}
	t.Cleanup(s.Kill)
	// Another process may take the port between our Listen and
	// redis-server's: pick another one then.
	for try := 0; ; try++ {
		s.port, err = freePort()
		if err == nil {
			err = s.start()
		}
		if err == nil {
			return s
		}
		if try == 4 {
			t.Fatalf("redistest: %v", err)
		}
	}
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// start runs redis-server on s.port and waits for its PONG.
func (s *Server) start() error {
	out := new(bytes.Buffer)
	cmd := exec.Command(s.bin, "--bind", "127.0.0.1", "--port", strconv.Itoa(s.port),
		"--save", "", "--appendonly", "no", "--daemonize", "no")
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		return err
	}
	done := make(chan struct{})
	var waitErr error
	go func() { waitErr = cmd.Wait(); close(done) }()
	rdb := redis.NewClient(&redis.Options{Addr: s.Addr(), MaxRetries: -1, DialTimeout: 200 * time.Millisecond})
	defer rdb.Close()
	where := "redis-server on port " + strconv.Itoa(s.port)
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		select {
		case <-done:
			return errors.New(where + " exited (" + errString(waitErr) + "): " + out.String())
		default:
		}
		ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
		err := rdb.Ping(ctx).Err()
		cancel()
		if err == nil {
			break
		}
		if time.Now().After(deadline) {
			_ = cmd.Process.Kill()
			<-done
			return errors.New(where + " did not answer PING: " + err.Error() + ": " + out.String())
		}
	}
	s.mu.Lock()
	s.cmd, s.done = cmd, done
	s.mu.Unlock()
	return nil
}

func errString(err error) string {
	if err == nil {
		return "status 0"
	}
	return err.Error()
}

// Addr is the server's host:port.
func (s *Server) Addr() string { return "127.0.0.1:" + strconv.Itoa(s.port) }

// Client returns a new go-redis client of the server, closed at the
// test's cleanup (before the server is killed).
func (s *Server) Client() *redis.Client {
	rdb := redis.NewClient(&redis.Options{Addr: s.Addr()})
	s.t.Cleanup(func() { _ = rdb.Close() })
	return rdb
}

// Kill kills the server with SIGKILL (no shutdown, no goodbye to its
// clients) and waits until it is gone. Killing a killed server does
// nothing.
func (s *Server) Kill() {
	s.mu.Lock()
	cmd, done := s.cmd, s.done
	s.cmd = nil
	s.mu.Unlock()
	if cmd == nil {
		return
	}
	_ = cmd.Process.Signal(syscall.SIGKILL)
	<-done
}

// Freeze stops the server (SIGSTOP): connections stay open and nothing
// answers, as in a partition that drops packets. Thaw resumes it.
func (s *Server) Freeze() { s.signal(syscall.SIGSTOP) }

// Thaw resumes a frozen server (SIGCONT).
func (s *Server) Thaw() { s.signal(syscall.SIGCONT) }

func (s *Server) signal(sig syscall.Signal) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cmd != nil {
		_ = s.cmd.Process.Signal(sig)
	}
}

// Restart kills the server if it runs and starts a new one on the same
// port: with no data, as persistence is off.
func (s *Server) Restart() {
	s.t.Helper()
	s.Kill()
	var err error
	for try := 0; try < 5; try++ {
		if err = s.start(); err == nil {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	s.t.Fatalf("redistest: restart: %v", err)
}
