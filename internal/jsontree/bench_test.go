package jsontree

import (
	"os"
	"runtime"
	"testing"
	"time"
)

// The two biggest JSON specs of the shared corpus.
var benchSpecs = []string{"cloudflare-2024-08.json", "github-2020.json"}

func readSpec(b *testing.B, name string) []byte {
	data, err := os.ReadFile("../../../shared/specs/real/" + name)
	if err != nil {
		b.Skipf("../shared/specs/real is absent: %v", err)
	}
	return data
}

// BenchmarkParse times Parse and yaml.v4 on each spec, alternating, and
// reports how many times faster Parse is and the ratio of bytes each
// allocates (go test -bench Parse -benchtime 5x ./internal/jsontree).
func BenchmarkParse(b *testing.B) {
	for _, name := range benchSpecs {
		b.Run(name, func(b *testing.B) {
			data := readSpec(b, name)
			var ms runtime.MemStats
			allocated := func() uint64 { runtime.ReadMemStats(&ms); return ms.TotalAlloc }
			var parseTime, yamlTime time.Duration
			var parseBytes, yamlBytes uint64
			b.ResetTimer()
			for range b.N {
				a, start := allocated(), time.Now()
				if _, err := yamlTree(data); err != nil {
					b.Fatal(err)
				}
				yamlTime += time.Since(start)
				yamlBytes += allocated() - a
				a, start = allocated(), time.Now()
				if _, err := Parse(data); err != nil {
					b.Fatal(err)
				}
				parseTime += time.Since(start)
				parseBytes += allocated() - a
			}
			n := float64(b.N)
			b.ReportMetric(float64(parseTime.Milliseconds())/n, "jsontree-ms/op")
			b.ReportMetric(float64(yamlTime.Milliseconds())/n, "yaml-ms/op")
			b.ReportMetric(float64(yamlTime)/float64(parseTime), "×faster")
			b.ReportMetric(float64(parseBytes)/n/1e6, "jsontree-MB/op")
			b.ReportMetric(float64(yamlBytes)/n/1e6, "yaml-MB/op")
			b.ReportMetric(float64(yamlBytes)/float64(parseBytes), "×fewer-bytes")
		})
	}
}

// BenchmarkParseOnly times Parse alone, with its allocations.
func BenchmarkParseOnly(b *testing.B) {
	for _, name := range benchSpecs {
		b.Run(name, func(b *testing.B) {
			data := readSpec(b, name)
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := Parse(data); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
