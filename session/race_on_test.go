//go:build race

package session

// raceDetector is true in -race builds: their instrumentation makes the
// 110k-event export memory test take minutes under load and changes what
// allocates, so scripts/test.sh runs that test once more without -race.
const raceDetector = true
