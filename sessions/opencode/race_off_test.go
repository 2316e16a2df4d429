//go:build !race

package opencode

const raceEnabled = false
