package gopanic

import (
	"strings"
	"testing"
)

func boom() {
	var m map[string]int
	//lint:ignore SA5000 the panic is what the test is about
	m["x"]++
}

// TestWaitRaisesTheWorkersPanic: a panic on a Group's goroutine comes out
// of Wait, in the caller, with the site that raised it; the others finish.
func TestWaitRaisesTheWorkersPanic(t *testing.T) {
	var g Group
	done := make(chan bool, 1)
	g.Go(boom)
	g.Go(func() { done <- true })
	defer func() {
		p, ok := recover().(*Panic)
		if !ok {
			t.Fatalf("Wait raised %v, want a *Panic", p)
		}
		if !strings.Contains(p.String(), "nil map") || !strings.Contains(p.Site, "gopanic.boom (gopanic_test.go:") {
			t.Fatalf("panic %q at %q, want the nil map at boom", p, p.Site)
		}
		if !<-done {
			t.Fatal("the other goroutine did not finish")
		}
	}()
	g.Wait()
	t.Fatal("Wait returned")
}

// TestNestedGroupsKeepTheFirstSite: a panic re-raised by an inner Group's
// Wait keeps the site where it began.
func TestNestedGroupsKeepTheFirstSite(t *testing.T) {
	var outer Group
	outer.Go(func() {
		var inner Group
		inner.Go(boom)
		inner.Wait()
	})
	defer func() {
		if p, _ := recover().(*Panic); p == nil || !strings.Contains(p.Site, "gopanic.boom") {
			t.Fatalf("got %#v, want the site of boom", p)
		}
	}()
	outer.Wait()
}

func TestWaitWithoutPanic(t *testing.T) {
	var g Group
	n := 0
	g.Go(func() { n++ })
	g.Wait()
	if n != 1 {
		t.Fatal("the function did not run")
	}
}
