package egress

import (
	"fmt"
	"net"
	"net/http"
	"time"
)

// admit starts serving c in a free slot, or queues it for one, or, when the
// queue is full, refuses it. It never blocks the accept loop.
func (p *Proxy) admit(c net.Conn) {
	select {
	case p.slots <- struct{}{}:
		p.start(c, true)
		return
	default:
	}
	if p.queued.Add(1) > int64(p.cfg.MaxQueue) {
		p.queued.Add(-1)
		p.refuseBusy(c, fmt.Sprintf("%d more already waiting", p.cfg.MaxQueue))
		return
	}
	p.start(c, false)
}

// start registers c and serves it on its own goroutine; without a slot the
// goroutine first waits for one. Registering and wg.Add happen under the
// lock that Close takes, so Close never waits while a goroutine is still
// being started, and reaches queued connections too.
func (p *Proxy) start(c net.Conn, slotted bool) {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		if slotted {
			<-p.slots
		} else {
			p.queued.Add(-1)
		}
		c.Close()
		return
	}
	p.conns[c] = struct{}{}
	p.wg.Add(1)
	p.mu.Unlock()
	go func() {
		defer p.wg.Done()
		defer p.dropConn(c)
		if !slotted && !p.waitSlot(c) {
			return
		}
		defer func() { <-p.slots }()
		defer c.Close()
		p.serveConn(c)
	}()
}

// waitSlot waits up to QueueTimeout for a slot. Blocked senders on a
// channel are woken in arrival order, so the queue is first come first
// served. A connection that times out is refused with a 503; one whose
// proxy closes meanwhile is closed.
func (p *Proxy) waitSlot(c net.Conn) bool {
	defer p.queued.Add(-1)
	t := time.NewTimer(p.cfg.QueueTimeout)
	defer t.Stop()
	select {
	case p.slots <- struct{}{}:
		return true
	case <-t.C:
		p.refuseBusy(c, fmt.Sprintf("waited %v for a free one", p.cfg.QueueTimeout))
	case <-p.ctx.Done():
		c.Close()
	}
	return false
}

// refuseBusy turns away a connection the cap and its queue cannot take,
// without reading its request: a 503 whose body names the cap and the way
// out, written and drained in the background (busyReply), never with a
// wait in the accept loop.
func (p *Proxy) refuseBusy(c net.Conn, why string) {
	p.cfg.OnDecision(Decision{Reason: fmt.Sprintf("over the limit of %d connections: %s", p.cfg.MaxConns, why)})
	go busyReply(c, fmt.Sprintf("too many open connections through the proxy (limit %d); %s; close some and retry", p.cfg.MaxConns, why))
}

// busyHandoffWait bounds the wait for the bridge's handoff message on a
// connection turned away; the bridge sends it as soon as it has connected.
const busyHandoffWait = time.Second

// busyReply writes the 503 and closes the connection after a brief drain,
// so the client reads the answer rather than a reset. From the bridge the
// member's socket is in the handoff message, not yet read: the answer goes
// to that socket (closing the Unix connection unread would reset the
// member's without a word), and the Unix connection is closed after it.
// Only the handoff message is read, never a request.
func busyReply(c net.Conn, text string) {
	c.SetReadDeadline(time.Now().Add(busyHandoffWait))
	if client, _, err := takeClient(c); err == nil && client != c {
		defer c.Close()
		c = client
	}
	// A fresh socket's send buffer is empty, so this small write does not
	// block; the deadline is a backstop.
	c.SetWriteDeadline(time.Now().Add(100 * time.Millisecond))
	replyText(c, http.StatusServiceUnavailable, text)
	lingerClose(c)
}
