//go:build unix

package main

import "syscall"

// mkfifo makes a named pipe at path.
func mkfifo(path string) error { return syscall.Mkfifo(path, 0o644) }

// charDeviceAt makes a character device at path (a copy of /dev/null) and
// returns path, or "" when the test may not make one. Never /dev/null
// itself: a regression run as root would replace it.
func charDeviceAt(path string) string {
	if err := syscall.Mknod(path, syscall.S_IFCHR|0o666, 1<<8|3); err != nil {
		return ""
	}
	return path
}
