//go:build linux

package mcpconn

import (
	"bytes"
	"os"
	"strconv"
	"sync"
	"syscall"
	"time"
)

// A stdio server's descendants that leave its process group (a grandchild
// that calls setsid(), a daemon) are not reached by signalling the group.
// While servers run, one watcher scans /proc every watchInterval and
// remembers every process descended from each server's leader, with its
// start time so that a reused pid is never signalled; Close ends those
// still alive and says which it could not end. A descendant that detaches
// and loses its parent between two scans is not seen.

const watchInterval = 250 * time.Millisecond

type descendantWatch struct {
	leader int
	mu     sync.Mutex
	seen   map[int]uint64 // pid → start time (clock ticks since boot)
}

var watcher = struct {
	sync.Mutex
	watches map[*descendantWatch]bool
	wake    chan struct{}
	running bool
}{watches: map[*descendantWatch]bool{}, wake: make(chan struct{}, 1)}

// watchDescendants starts remembering the descendants of leader.
func watchDescendants(leader int) *descendantWatch {
	w := &descendantWatch{leader: leader, seen: map[int]uint64{}}
	watcher.Lock()
	watcher.watches[w] = true
	if !watcher.running {
		watcher.running = true
		go watchLoop()
	}
	watcher.Unlock()
	return w
}

func watchLoop() {
	tick := time.NewTicker(watchInterval)
	defer tick.Stop()
	for {
		watcher.Lock()
		if len(watcher.watches) == 0 {
			watcher.running = false
			watcher.Unlock()
			return
		}
		ws := make([]*descendantWatch, 0, len(watcher.watches))
		for w := range watcher.watches {
			ws = append(ws, w)
		}
		watcher.Unlock()
		table := readProcTable()
		for _, w := range ws {
			w.record(table)
		}
		select {
		case <-tick.C:
		case <-watcher.wake:
		}
	}
}

// scan records the leader's current descendants at once (Close calls it
// before signalling, while the tree is still connected).
func (w *descendantWatch) scan() { w.record(readProcTable()) }

// stop ends the watch.
func (w *descendantWatch) stop() {
	watcher.Lock()
	delete(watcher.watches, w)
	watcher.Unlock()
	select {
	case watcher.wake <- struct{}{}:
	default:
	}
}

func (w *descendantWatch) record(table map[int]procStat) {
	children := map[int][]int{}
	for pid, st := range table {
		children[st.ppid] = append(children[st.ppid], pid)
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	// Known descendants whose parent died are still roots of their own
	// subtrees (they were reparented to init).
	queue := []int{w.leader}
	for pid, start := range w.seen {
		if st, ok := table[pid]; ok && st.start == start {
			queue = append(queue, pid)
		}
	}
	visited := map[int]bool{}
	for len(queue) > 0 {
		pid := queue[0]
		queue = queue[1:]
		if visited[pid] {
			continue
		}
		visited[pid] = true
		for _, c := range children[pid] {
			if _, known := w.seen[c]; !known {
				w.seen[c] = table[c].start
			}
			queue = append(queue, c)
		}
	}
}

// reap ends every remembered descendant still alive (SIGTERM, grace, then
// SIGKILL) and returns the pids still running after that.
func (w *descendantWatch) reap(grace time.Duration) []int {
	alive := func() []int {
		table := readProcTable()
		w.mu.Lock()
		defer w.mu.Unlock()
		var out []int
		for pid, start := range w.seen {
			if st, ok := table[pid]; ok && st.start == start && st.state != 'Z' {
				out = append(out, pid)
			}
		}
		return out
	}
	left := alive()
	if len(left) == 0 {
		return nil
	}
	for _, pid := range left {
		_ = syscall.Kill(pid, syscall.SIGTERM)
	}
	deadline := time.Now().Add(grace)
	for len(left) > 0 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
		left = alive()
	}
	for _, pid := range left {
		_ = syscall.Kill(pid, syscall.SIGKILL)
	}
	deadline = time.Now().Add(2 * time.Second)
	for len(left) > 0 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
		left = alive()
	}
	return left
}

type procStat struct {
	ppid  int
	start uint64
	state byte
}

// readProcTable reads pid, parent, state and start time of every process.
func readProcTable() map[int]procStat {
	out := map[int]procStat{}
	d, err := os.Open("/proc")
	if err != nil {
		return out
	}
	defer d.Close()
	names, _ := d.Readdirnames(-1)
	for _, name := range names {
		pid, err := strconv.Atoi(name)
		if err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + name + "/stat")
		if err != nil {
			continue
		}
		if st, ok := parseProcStat(b); ok {
			out[pid] = st
		}
	}
	return out
}

// parseProcStat reads fields 3 (state), 4 (ppid) and 22 (starttime) of
// /proc/PID/stat; the command name in parentheses may hold spaces.
func parseProcStat(b []byte) (procStat, bool) {
	i := bytes.LastIndexByte(b, ')')
	if i < 0 || i+2 >= len(b) {
		return procStat{}, false
	}
	f := bytes.Fields(b[i+2:])
	if len(f) < 20 || len(f[0]) != 1 {
		return procStat{}, false
	}
	ppid, err1 := strconv.Atoi(string(f[1]))
	start, err2 := strconv.ParseUint(string(f[19]), 10, 64)
	if err1 != nil || err2 != nil {
		return procStat{}, false
	}
	return procStat{ppid: ppid, start: start, state: f[0][0]}, true
}
