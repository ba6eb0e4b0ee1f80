package nsjail

// SetAfterOpen installs the test hook that runs after the parent opened the
// grants and before the helper starts.
func (o *Options) SetAfterOpen(f func()) { o.afterOpen = f }
