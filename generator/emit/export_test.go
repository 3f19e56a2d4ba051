package emit

// RenderIn is render for the tests of package emit_test, which need the
// generator to make models of real specs: workers and the smallest chunk
// are theirs to choose.
var RenderIn = render
