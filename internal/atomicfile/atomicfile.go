// Package atomicfile writes the temp files resgen renames over its
// outputs (generate's client files, lab's reports), so a failed run
// never leaves a file half-written.
package atomicfile

import (
	"io/fs"
	"os"
)

// Marker is in the name of every temp file resgen writes: the next run
// can tell a leftover of its own (a crash between write and rename) from
// a user's file.
const Marker = ".resgen-"

// WriteTemp writes data to a new temp file in dir named after base
// (".BASE.resgen-NNN"), with the permission bits mode, synced to disk so
// that a crash after the rename leaves the new file or the old one, never
// an empty one. It returns the temp file's path; on an error nothing is
// left behind.
func WriteTemp(dir, base string, data []byte, mode fs.FileMode) (string, error) {
	tmp, err := os.CreateTemp(dir, "."+base+Marker+"*")
	if err != nil {
		return "", err
	}
	_, err = tmp.Write(data)
	if err == nil {
		err = tmp.Chmod(mode)
	}
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(tmp.Name())
		return "", err
	}
	return tmp.Name(), nil
}
