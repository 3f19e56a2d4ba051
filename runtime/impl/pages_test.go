package impl

import (
	"context"
	"errors"
	"net/http"
	"reflect"
	"testing"

	"github.com/resgen/resgen/runtime"
)

func TestLinkNext(t *testing.T) {
	cases := []struct {
		name  string
		links []string
		want  string
	}{
		{"GitHub", []string{`<https://api.github.com/repositories/1/issues?page=2>; rel="next", <https://api.github.com/repositories/1/issues?page=5>; rel="last"`}, "https://api.github.com/repositories/1/issues?page=2"},
		{"next not first", []string{`<https://x/a?page=1>; rel="prev", <https://x/a?page=3>; rel="next"`}, "https://x/a?page=3"},
		{"in a second header", []string{`</a?page=1>; rel="first"`, `</a?page=2>; rel=next`}, "/a?page=2"},
		{"several relations", []string{`</b>; rel="last next"`}, "/b"},
		{"case of rel", []string{`</c>; REL="Next"`}, "/c"},
		{"quoted comma and semicolon", []string{`</d>; title="a, b; c"; rel="next"`}, "/d"},
		{"no next", []string{`</e>; rel="prev"`}, ""},
		{"none", nil, ""},
		{"not a link", []string{`rel="next"`}, ""},
		{"unclosed", []string{`</f; rel="next"`}, ""},
		{"nextpage is not next", []string{`</g>; rel="nextpage"`}, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h := http.Header{}
			for _, l := range c.links {
				h.Add("Link", l)
			}
			if got := LinkNext(h); got != c.want {
				t.Errorf("LinkNext(%q) = %q, want %q", c.links, got, c.want)
			}
		})
	}
}

func TestPagesGuards(t *testing.T) {
	p, _ := StartPages(context.Background(), "list", []runtime.CallOption{runtime.WithMaxPages(2)})
	defer p.Stop()
	for range 2 {
		if err := p.Next(); err != nil {
			t.Fatal(err)
		}
	}
	var pe *runtime.PageError
	if err := p.Next(); !errors.As(err, &pe) || pe.Page != 2 {
		t.Fatalf("page 3 of at most 2: %v", err)
	}
	if more, err := p.Cursor("a"); !more || err != nil {
		t.Fatalf("a new cursor: %v %v", more, err)
	}
	if more, err := p.Cursor(""); more || err != nil {
		t.Fatalf("no cursor: %v %v", more, err)
	}
	if more, err := p.Cursor("a"); more || !errors.As(err, &pe) {
		t.Fatalf("a repeated cursor: %v %v", more, err)
	}
	for _, c := range []struct {
		at         int64
		got, limit int
		next       int64
		more       bool
	}{{0, 3, 3, 3, true}, {3, 2, 3, 5, false}, {6, 0, 0, 6, false}, {6, 7, 0, 13, true}} {
		if next, more := p.Offset(c.at, c.got, c.limit); next != c.next || more != c.more {
			t.Errorf("Offset(%d, %d, %d) = %d, %v; want %d, %v", c.at, c.got, c.limit, next, more, c.next, c.more)
		}
	}
	if next, more := p.PageNumber(4, 1); next != 5 || !more {
		t.Errorf("PageNumber(4, 1) = %d, %v", next, more)
	}
	if _, more := p.PageNumber(4, 0); more {
		t.Error("an empty page is the last")
	}
}

func TestPagesDoNotChangeTheCallersOptions(t *testing.T) {
	backing := []runtime.CallOption{runtime.WithNoRetry(), runtime.WithMaxPages(99), runtime.WithMaxPages(99)}
	opts := backing[:1]
	p, _ := StartPages(context.Background(), "list", opts)
	defer p.Stop()
	if _, err := p.NextURL("/a?page=2"); err != nil {
		t.Fatal(err)
	}
	if len(p.Opts()) != 2 {
		t.Fatalf("%d options, want the caller's and the next URL", len(p.Opts()))
	}
	if _, err := p.NextURL("/a?page=3"); err != nil {
		t.Fatal(err)
	}
	if len(p.Opts()) != 2 || !reflect.DeepEqual(backing[1], runtime.WithMaxPages(99)) {
		t.Fatal("the next URL went into the caller's slice")
	}
}
