//go:build unix

// Package benchrun holds what the benchmark scripts (scripts/bench,
// scripts/benchgen) share: running a command in its own process group,
// measuring its wall time, CPU time and peak RSS, exporting a git revision
// into a folder, medians and formatting.
package benchrun

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strings"
	"syscall"
	"time"
)

// Measured is what Measure saw of one command.
type Measured struct {
	Wall, CPU time.Duration // CPU: user+sys of it and the descendants it waited for
	RSSKiB    int64         // ru_maxrss (KiB on Linux)
	Out       string        // stdout and stderr, interleaved
}

// Measure runs a command in its own process group (killed as a group on
// interrupt) and returns its wall and CPU time and ru_maxrss.
func Measure(ctx context.Context, dir string, env []string, name string, args ...string) (Measured, error) {
	cmd := Command(ctx, dir, env, name, args...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	t := time.Now()
	err := cmd.Run()
	m := Measured{Wall: time.Since(t), Out: out.String()}
	if ps := cmd.ProcessState; ps != nil {
		m.CPU = ps.UserTime() + ps.SystemTime()
		if ru, ok := ps.SysUsage().(*syscall.Rusage); ok {
			m.RSSKiB = int64(ru.Maxrss) // KiB on Linux
		}
	}
	return m, err
}

// Command is name args in dir, in its own process group, which an
// interrupt kills whole.
func Command(ctx context.Context, dir string, env []string, name string, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 5 * time.Second
	return cmd
}

// Combined runs a command with GOWORK=off (a go.work around the tree must
// not change what is built) and returns its stdout and stderr.
func Combined(ctx context.Context, dir string, env []string, name string, args ...string) (string, error) {
	cmd := Command(ctx, dir, append([]string{"GOWORK=off"}, env...), name, args...)
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// Output runs a command and returns its stdout, trimmed.
func Output(ctx context.Context, dir, name string, args ...string) (string, error) {
	cmd := Command(ctx, dir, nil, name, args...)
	out, err := cmd.Output()
	return strings.TrimSpace(string(out)), err
}

// ExportRev writes the tree of rev into dst with git archive | tar: no
// worktree is registered, so an interrupted run leaves only a temporary
// folder behind, which it removes.
func ExportRev(ctx context.Context, repo, rev, dst string) error {
	if err := os.MkdirAll(dst, 0o755); err != nil {
		return err
	}
	archive := Command(ctx, repo, nil, "git", "archive", "--format=tar", rev)
	untar := Command(ctx, dst, nil, "tar", "-x", "-f", "-")
	pipe, err := archive.StdoutPipe()
	if err != nil {
		return err
	}
	var stderr bytes.Buffer
	archive.Stderr, untar.Stderr, untar.Stdin = &stderr, &stderr, pipe
	if err := archive.Start(); err != nil {
		return err
	}
	uerr := untar.Run()
	if err := archive.Wait(); err != nil {
		return fmt.Errorf("git archive: %v: %s", err, stderr.String())
	}
	if uerr != nil {
		return fmt.Errorf("tar: %v: %s", uerr, stderr.String())
	}
	return nil
}

// LastLines is the last n lines of s.
func LastLines(s string, n int) string {
	ls := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return strings.Join(ls[max(0, len(ls)-n):], "\n")
}

// MedianOf is the median of v (the mean of the middle two for an even
// count), 0 for none; v is not reordered.
func MedianOf(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	v = slices.Clone(v)
	slices.Sort(v)
	n := len(v)
	if n%2 == 1 {
		return v[n/2]
	}
	return (v[n/2-1] + v[n/2]) / 2
}

// MiB formats KiB as MiB, or GiB from 1 GiB.
func MiB(kib float64) string {
	if kib >= 1<<20 {
		return fmt.Sprintf("%.2f GiB", kib/(1<<20))
	}
	return fmt.Sprintf("%.0f MiB", kib/(1<<10))
}
