package backend

// Check is the answer to one host requirement, as `acbox doctor` prints
// it (its JSON is stable: name, ok, detail, remedy).
type Check struct {
	Name   string `json:"name"`
	OK     bool   `json:"ok"`
	Detail string `json:"detail,omitempty"`
	Remedy string `json:"remedy,omitempty"`
}

// HostCheck is one requirement a backend can check on its own: its name
// and the check, which must not touch the real root and may take time
// (the caller bounds it).
type HostCheck struct {
	Name string
	Run  func() Check
}

// HostChecker is implemented by a backend whose host requirements can be
// checked one by one (user namespaces, Landlock, cgroups...), so that
// `acbox doctor` can name the one that fails and its remedy. Availability
// remains the whole answer; these are its parts.
type HostChecker interface {
	HostChecks() []HostCheck
}
