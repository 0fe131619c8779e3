//go:build !race

package project

const raceDetector = false
