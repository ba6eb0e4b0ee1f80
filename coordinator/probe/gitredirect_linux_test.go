//go:build integration

package probe

import "testing"

// TestGitRedirects runs the git-redirection scenarios.
func TestGitRedirects(t *testing.T) {
	runScenarios(t, func(r *Runner) []Line { return r.gitRedirects() })
}
