package coordinator

// Cleanup is a stack of teardown steps, modelled on gVisor's
// pkg/cleanup: each step that acquires something adds its undo, and one
// deferred Clean runs them all, last added first, on whatever way the
// function leaves. Release disarms the stack when the acquired things are
// handed to someone else (a constructor that succeeded). The zero value is
// ready to use; it is not safe for concurrent use.
type Cleanup struct{ steps []func() }

// Add pushes one step.
func (c *Cleanup) Add(f func()) { c.steps = append(c.steps, f) }

// Clean runs every step, last added first, and empties the stack.
func (c *Cleanup) Clean() {
	for i := len(c.steps) - 1; i >= 0; i-- {
		c.steps[i]()
	}
	c.steps = nil
}

// Release empties the stack without running anything and returns a
// function that runs what it held (for the new owner to call).
func (c *Cleanup) Release() func() {
	held := &Cleanup{steps: c.steps}
	c.steps = nil
	return held.Clean
}
