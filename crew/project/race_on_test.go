//go:build race

package project

// raceDetector is true in -race builds, whose instrumentation changes what
// allocates: memory-per-byte bounds are measured without it.
const raceDetector = true
