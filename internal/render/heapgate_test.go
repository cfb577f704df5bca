package render

import (
	"sync"
	"testing"
	"time"
)

// TestHeapGate: roots render side by side only while their estimated heap
// fits; one estimated past the capacity renders alone, and what waits is
// admitted when it ends.
func TestHeapGate(t *testing.T) {
	g := heapGate{capacity: 10}
	g.free = sync.NewCond(&g.mu)
	if got := g.acquire(4); got != 4 {
		t.Fatalf("acquire(4) took %v", got)
	}
	if got := g.acquire(6); got != 6 {
		t.Fatalf("acquire(6) beside 4 took %v", got)
	}
	g.release(6)
	g.release(4)
	big := g.acquire(25)
	if big != 10 {
		t.Fatalf("acquire(25) took %v, want the capacity", big)
	}
	admitted := make(chan struct{})
	go func() {
		g.release(g.acquire(1))
		close(admitted)
	}()
	select {
	case <-admitted:
		t.Fatal("a root was admitted beside one that takes the whole capacity")
	case <-time.After(50 * time.Millisecond):
	}
	g.release(big)
	<-admitted
	if g.used != 0 {
		t.Errorf("%v left in use", g.used)
	}
}
