package policy_test

import (
	"fmt"
	"os"

	"github.com/acbox/acbox/coordinator/policy"
)

// ExampleResolve resolves a spec for this host: a build in a repository,
// with the repository writable.
func ExampleResolve() {
	host, err := policy.HostFromEnv()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return
	}
	spec := policy.Spec{
		Backend: "native",
		Command: []string{"make", "test"},
		Cwd:     "/home/u/proj",
		Access:  policy.Access{Write: []string{"/home/u/proj"}},
	}
	plan, err := policy.Resolve(spec, host)
	if err != nil {
		fmt.Fprintln(os.Stderr, err) // here: /home/u/proj does not exist
		return
	}
	fmt.Println(plan.Backend, plan.Command)
}
