package track

// WriteStore is writeStore for the external benchmarks (package track_test).
var WriteStore = writeStore
