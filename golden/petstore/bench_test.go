package petstore

// The generated client's cost over hand-written net/http code, measured
// in the same run against a loopback server: ShowPetByID (breaker, retry
// policy quick, 2s per attempt, 10s in all) next to the same GET written
// by hand with the same http.Client, the same Accept header, the same
// read-then-json.Unmarshal decode, and a context.WithTimeout of 2s (the
// operation's per-attempt timeout; with one attempt it is also the
// earlier of its two deadlines). scripts/bench (make bench) prints the
// ratio of the medians; the goal is below 1.05 (the resilience costs
// under 5% of a loopback call).

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"testing"
	"time"
)

const benchPet = `{"id": 1, "name": "rex", "tag": "dog"}`

func benchServer(b *testing.B) *httptest.Server {
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, benchPet)
	}))
	b.Cleanup(s.Close)
	return s
}

// handWrittenShowPetByID is what a careful programmer writes without
// resgen: one attempt, a timeout, the status checked, the body decoded.
func handWrittenShowPetByID(ctx context.Context, hc *http.Client, server, petID string) (*Pet, error) {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, "GET", server+"/pets/"+url.PathEscape(petID), nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "application/json")
	resp, err := hc.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != 200 {
		return nil, fmt.Errorf("GET /pets/%s: status %d", petID, resp.StatusCode)
	}
	var p Pet
	if err := json.Unmarshal(raw, &p); err != nil {
		return nil, err
	}
	return &p, nil
}

// BenchmarkLoopbackShowPetByID: "generated" and "handwritten" make the
// same call, each in its own loop, for ns/op and allocs/op. "paired" makes
// one of each per iteration against one server and one http.Client,
// alternating which goes first, and reports gen/hand, the ratio of their
// summed times: on a loaded machine a burst of load falls on both sides,
// which separate loops cannot promise. scripts/bench (make bench) prints
// the median of the paired ratios over its rounds.
func BenchmarkLoopbackShowPetByID(b *testing.B) {
	ctx := context.Background()
	b.Run("paired", func(b *testing.B) {
		s := benchServer(b)
		hc := s.Client()
		c, err := NewClient(s.URL, WithHTTPClient(hc), WithLogger(slog.New(slog.DiscardHandler)))
		if err != nil {
			b.Fatal(err)
		}
		gen := func() {
			resp, err := c.ShowPetByID(ctx, "1")
			if err != nil || resp.JSON200 == nil || resp.JSON200.Name != "rex" {
				b.Fatalf("%+v, %v", resp, err)
			}
		}
		hand := func() {
			p, err := handWrittenShowPetByID(ctx, hc, s.URL, "1")
			if err != nil || p.Name != "rex" {
				b.Fatalf("%+v, %v", p, err)
			}
		}
		// Per pair: its two times, taken back to back.
		var gs, hs []time.Duration
		first := true
		for b.Loop() {
			t0 := time.Now()
			if first {
				gen()
			} else {
				hand()
			}
			t1 := time.Now()
			if first {
				hand()
			} else {
				gen()
			}
			t2 := time.Now()
			if first {
				gs, hs = append(gs, t1.Sub(t0)), append(hs, t2.Sub(t1))
			} else {
				hs, gs = append(hs, t1.Sub(t0)), append(gs, t2.Sub(t1))
			}
			first = !first
		}
		b.StopTimer()
		n := len(gs)
		ratios := make([]float64, n)
		pairs := make([]time.Duration, n)
		var tg, th time.Duration
		for i := range gs {
			ratios[i] = float64(gs[i]) / float64(hs[i])
			pairs[i] = gs[i] + hs[i]
			tg, th = tg+gs[i], th+hs[i]
		}
		// The slowest 1% of pairs, where a burst of load or a pause
		// landed, are left out of the trimmed total.
		cut := slices.Clone(pairs)
		slices.Sort(cut)
		limit := cut[n*99/100]
		var trg, trh time.Duration
		for i := range gs {
			if pairs[i] <= limit {
				trg, trh = trg+gs[i], trh+hs[i]
			}
		}
		slices.Sort(ratios)
		slices.Sort(gs)
		slices.Sort(hs)
		b.ReportMetric(float64(gs[n/2]), "gen-median-ns")
		b.ReportMetric(float64(hs[n/2]), "hand-median-ns")
		// gen/hand: the median of the pairs' ratios, robust to a burst of
		// load hitting one call of a pair; gen/hand-sum: total time over
		// total time, which also charges pauses (GC) to the side they hit,
		// and every burst of load; gen/hand-trim: the same without the
		// slowest 1% of pairs.
		b.ReportMetric(ratios[n/2], "gen/hand")
		b.ReportMetric(float64(tg)/float64(th), "gen/hand-sum")
		b.ReportMetric(float64(trg)/float64(trh), "gen/hand-trim")
	})
	b.Run("generated", func(b *testing.B) {
		s := benchServer(b)
		c, err := NewClient(s.URL, WithHTTPClient(s.Client()), WithLogger(slog.New(slog.DiscardHandler)))
		if err != nil {
			b.Fatal(err)
		}
		b.ReportAllocs()
		for b.Loop() {
			resp, err := c.ShowPetByID(ctx, "1")
			if err != nil || resp.JSON200 == nil || resp.JSON200.Name != "rex" {
				b.Fatalf("%+v, %v", resp, err)
			}
		}
	})
	b.Run("handwritten", func(b *testing.B) {
		s := benchServer(b)
		hc := s.Client()
		b.ReportAllocs()
		for b.Loop() {
			p, err := handWrittenShowPetByID(ctx, hc, s.URL, "1")
			if err != nil || p.Name != "rex" {
				b.Fatalf("%+v, %v", p, err)
			}
		}
	})
}
