// Package bench measures acbox against baselines run side by side in the
// same invocation: bare exec, bubblewrap where installed, and direct
// loopback for the proxy. Run it with `make bench`; it prints medians and
// ratios with the machine noted, for docs/benchmarks.md.
package bench
