package resgenredis_test

// TEMPORARY: a redis-server of the test's own until helper "redis" lands
// redistest.Start; to be replaced by it at the merge.

import (
	"context"
	"net"
	"os"
	"os/exec"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

type redisServer struct {
	tb   testing.TB
	Addr string
	cmd  *exec.Cmd
}

func startRedis(tb testing.TB) *redisServer {
	tb.Helper()
	if _, err := exec.LookPath("redis-server"); err != nil {
		if os.Getenv("CI") == "1" {
			tb.Fatal("redis-server is not installed")
		}
		tb.Skip("redis-server is not installed")
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	s := &redisServer{tb: tb, Addr: net.JoinHostPort("127.0.0.1", strconv.Itoa(port))}
	s.Restart()
	tb.Cleanup(s.Kill)
	return s
}

func (s *redisServer) Restart() {
	s.tb.Helper()
	_, port, _ := net.SplitHostPort(s.Addr)
	s.cmd = exec.Command("redis-server", "--bind", "127.0.0.1", "--port", port, "--save", "", "--appendonly", "no", "--daemonize", "no")
	if err := s.cmd.Start(); err != nil {
		s.tb.Fatal(err)
	}
	rdb := redis.NewClient(&redis.Options{Addr: s.Addr, MaxRetries: -1})
	defer rdb.Close()
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		if rdb.Ping(context.Background()).Err() == nil {
			return
		}
		if time.Now().After(deadline) {
			s.tb.Fatal("redis-server did not answer PING")
		}
	}
}

func (s *redisServer) Kill() {
	if s.cmd != nil && s.cmd.Process != nil {
		s.cmd.Process.Kill()
		s.cmd.Wait()
		s.cmd = nil
	}
}

// Pause stops the server's process (SIGSTOP): it keeps its connections
// but answers nothing, as behind a partition. Kill and Restart work on a
// paused server.
func (s *redisServer) Pause() {
	if s.cmd != nil && s.cmd.Process != nil {
		s.cmd.Process.Signal(syscall.SIGSTOP)
	}
}
