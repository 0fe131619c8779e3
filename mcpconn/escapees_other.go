//go:build !linux

package mcpconn

import "time"

// descendantWatch is Linux-only (it reads /proc); elsewhere the process
// group is all Close reaches.
type descendantWatch struct{}

func watchDescendants(int) *descendantWatch       { return &descendantWatch{} }
func (*descendantWatch) scan()                    {}
func (*descendantWatch) stop()                    {}
func (*descendantWatch) reap(time.Duration) []int { return nil }
