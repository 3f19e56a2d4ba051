package conformance

import "github.com/getkin/kin-openapi/openapi3"

// distinctTries bounds the seeds distinctParamValue tries.
const distinctTries = 8

// distinctParamValue is paramValue with a value none of taken has (by its
// JSON text), when the schema admits one within a few seeds: two path
// parameters of one schema would otherwise get the same value, and a
// client that swaps them would send the same URL. The value is added to
// taken.
func (p *planner) distinctParamValue(kp *openapi3.Parameter, seed int, taken *[]string) (any, error) {
	v, err := p.paramValue(kp, seed)
	if err != nil {
		return nil, err
	}
	for try := 1; try < distinctTries && containsString(*taken, canonical(v)); try++ {
		// Seeds past the call's own, skipping 1 (the spec's example).
		w, err := p.paramValue(kp, seed+try+1)
		if err == nil {
			v = w
		}
	}
	*taken = append(*taken, canonical(v))
	return v, nil
}
