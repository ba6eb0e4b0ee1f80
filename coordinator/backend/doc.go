// Package backend is the interface between the launcher (package
// coordinator) and the backends that run a plan: the native backend
// (package nsjail) and the docker backend (package coordinator/docker).
// The backends are peers: each implements [Backend], neither imports the
// other, and what both need lives in packages beneath them
// (coordinator/policy, coordinator/pin, coordinator/seccomp, this one).
// Adding a backend is its own package and one line where the program lists
// its backends.
//
// The launcher chooses the backend before it resolves the spec (the plan
// is shaped for its backend and never changed after policy.Resolve), asks
// it what the plan lacks, and launches:
//
//	b := nsjail.Backend{}
//	if a := b.Available(ctx); !a.Available {
//		return fmt.Errorf("%s: %s; %s", a.Backend, a.Why, a.Remedy)
//	}
//	plan, err := policy.Resolve(policy.Spec{Backend: b.Name(), Command: cmd}, host)
//	if err != nil {
//		return err
//	}
//	if err := backend.Refuse(b, plan); err != nil {
//		return err // a policy refusal naming each shortfall and its remedy
//	}
//	out, err := b.Launch(plan, backend.LaunchIO{ID: backend.NewID()})
//
// Launch calls [Refuse] itself too, so a plan that lacks something never
// runs with less isolation, whoever launches it. [Backend.Live] and
// [Backend.Cleanup] serve admission (live sandboxes the registry does not
// know, such as other users' containers on a shared daemon) and gc (what
// sandboxes whose owner died left behind). A backend that can say before a
// launch which controls it would enforce also implements [Expecter]
// (`acbox plan` prints that report); one that can end a sandbox of its
// own without a host pid implements [Ender] (`acbox stop` uses it when the
// registry records no pid 1 it can signal).
//
// [NewID] makes the sandbox ids every backend, the registry and the run
// directory name sandboxes by.
package backend
