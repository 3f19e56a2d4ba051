//go:build unix

package load

import (
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
)

// TestReadGuardSwappedFolder: a folder on the path of a referenced file
// swapped for a symbolic link to outside the read root, over and over,
// while the guard reads the file: what the guard checked is what it
// reads, so it never returns the file outside (it read it in 5 of 300
// runs when it opened the checked path by name again). Each read returns
// the file inside or is refused.
func TestReadGuardSwappedFolder(t *testing.T) {
	tmp, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	root, outside := filepath.Join(tmp, "root"), filepath.Join(tmp, "outside")
	writeFiles(t, tmp, map[string]string{
		"root/go.mod":            "module m\n",
		"root/spec.yaml":         refToCommon,
		"root/dir/pet.yaml":      "Pet: {type: object, description: INSIDE}\n",
		"outside/dir/pet.yaml":   "Pet: {type: object, description: OUTSIDE}\n",
		"outside/dir/other.yaml": "",
	})
	dir, parked, link := filepath.Join(root, "dir"), filepath.Join(root, "dir.real"), filepath.Join(root, "dir.link")
	if err := os.Symlink(filepath.Join(outside, "dir"), link); err != nil {
		t.Fatal(err)
	}
	// The swapper: dir is the real folder, then (after a moment with no
	// dir at all) a link to outside/dir, then the real folder again.
	var stop atomic.Bool
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for !stop.Load() {
			os.Rename(dir, parked)
			os.Rename(link, dir)
			os.Rename(dir, link)
			os.Rename(parked, dir)
		}
	}()
	defer func() {
		stop.Store(true)
		wg.Wait()
	}()
	u := &url.URL{Scheme: "file", Path: filepath.ToSlash(filepath.Join(dir, "pet.yaml"))}
	const runs = 20_000
	var inside, outsideReads, refused int
	for range runs {
		g, diags := newReadGuard(filepath.Join(root, "spec.yaml"), nil)
		if diags != nil {
			t.Fatal(diags)
		}
		g.rp = &repairs{}
		data, err := g.readRef(nil, u)
		switch {
		case err != nil:
			refused++
		case strings.Contains(string(data), "OUTSIDE"):
			outsideReads++
		case strings.Contains(string(data), "INSIDE"):
			inside++
		default:
			t.Fatalf("read %q", data)
		}
	}
	t.Logf("%d reads: %d inside, %d refused, %d outside", runs, inside, refused, outsideReads)
	if outsideReads > 0 {
		t.Errorf("%d of %d reads returned the file outside the read root", outsideReads, runs)
	}
	if inside == 0 {
		t.Errorf("no read returned the file inside: the test did not test the race")
	}
}
