package sessions

// Reading a file's lines ahead of a scan that decodes them on another
// goroutine (LineIndex.ScanToPrepared): while a command shows a page of a
// session, the lines of the next are read and decoded beside it.

import (
	"bufio"
	"bytes"
	"io"
	"sync"
)

// aheadBytes is how many bytes of lines a read-ahead holds that its scan
// has not taken: about a page of a large session's lines; tests lower it.
var aheadBytes = 1 << 20

// aheadLine is one line read ahead: as nextLine gives it, and what
// prepare made of it.
type aheadLine struct {
	data []byte
	size int
	err  error
	prep any
	long *LineRead // a long line read without its long strings, data nil
}

// readAhead reads a file's lines from an offset on, on its own goroutine,
// each given to prepare, into a queue its scans take them from in order.
// Once the queue holds aheadBytes the goroutine ends (closing the file)
// and is started again from where it stopped when the queue runs low, so
// that nothing waits on a scan that may never come back.
type readAhead struct {
	path    string
	stat    string // StatPrint of the file when the reading began
	budget  int    // aheadBytes when it began
	prepare func(data []byte) any
	from    int64 // where the next line taken starts (its scans keep it)

	mu      sync.Mutex
	queue   []aheadLine
	held    int           // bytes of lines in queue
	readTo  int64         // where the reading goes on from
	running bool          // a goroutine reads
	done    bool          // the end, or an error, is queued: no more reads
	quit    bool          // dropped: the goroutine ends at its next line
	wake    chan struct{} // poked when a line is queued
}

func newReadAhead(path, stat string, from int64, prepare func(data []byte) any) *readAhead {
	a := &readAhead{path: path, stat: stat, budget: aheadBytes, prepare: prepare, from: from, readTo: from, wake: make(chan struct{}, 1)}
	a.mu.Lock()
	a.resume()
	a.mu.Unlock()
	return a
}

// resume starts a goroutine reading from readTo. Call with a.mu held.
func (a *readAhead) resume() {
	a.running = true
	go a.read(a.readTo)
}

// read reads lines from off on, queueing them, until push says to stop.
func (a *readAhead) read(off int64) {
	f, _, err := openRegular(a.path)
	if err != nil {
		a.push(aheadLine{err: err}, off)
		return
	}
	defer f.Close()
	if _, err := f.Seek(off, io.SeekStart); err != nil {
		a.push(aheadLine{err: fileErr(a.path, err)}, off)
		return
	}
	r := bufio.NewReaderSize(f, 1<<16)
	for {
		l := aheadLine{}
		l.data, l.size, l.err = nextLine(r, f, off)
		if t := bytes.TrimSpace(l.data); l.size <= maxLineBytes && len(t) > 0 {
			l.prep = a.prepare(t)
		}
		off += int64(l.size)
		if !a.push(l, off) {
			return
		}
	}
}

// push queues line l, off being where the line after it starts; false
// when the reading is to stop: the end or an error came, the queue is
// full, or the read-ahead was dropped.
func (a *readAhead) push(l aheadLine, off int64) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.quit {
		a.running = false
		return false
	}
	a.queue = append(a.queue, l)
	a.held += len(l.data)
	a.readTo = off
	if l.err != nil || l.size == 0 {
		a.done = true
	}
	if a.done || a.held >= a.budget {
		a.running = false
	}
	select {
	case a.wake <- struct{}{}:
	default:
	}
	return a.running
}

// next takes the next line, waiting for it to be read, and starts the
// reading again when the queue is low; after the end, a line of size 0.
func (a *readAhead) next() aheadLine {
	a.mu.Lock()
	defer a.mu.Unlock()
	for len(a.queue) == 0 {
		if a.done {
			return aheadLine{}
		}
		if !a.running {
			a.resume()
		}
		a.mu.Unlock()
		<-a.wake
		a.mu.Lock()
	}
	l := a.queue[0]
	a.queue[0] = aheadLine{}
	a.queue = a.queue[1:]
	a.held -= len(l.data)
	if !a.running && !a.done && a.held < a.budget/2 {
		a.resume()
	}
	return l
}

// drop ends the reading and lets go of the lines queued.
func (a *readAhead) drop() {
	a.mu.Lock()
	a.quit, a.queue = true, nil
	a.mu.Unlock()
}
