package policy

import (
	"regexp"
	"strings"
	"sync"
)

// varRE is compiled on first use (profiles only), not at every process's
// start.
var varRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\$\{([A-Za-z_][A-Za-z0-9_]*)\}`) })

// expandPath expands ${VAR} from the host's environment, then a leading ~.
// An unset variable is an error rather than an empty string, which could
// turn "${PROJ}/src" into "/src".
func expandPath(p string, h Host) (string, error) {
	var missing string
	out := varRE().ReplaceAllStringFunc(p, func(m string) string {
		name := m[2 : len(m)-1]
		v, ok := h.getenv(name)
		if !ok && missing == "" {
			missing = name
		}
		return v
	})
	if missing != "" {
		return "", invalid("profile path %q: ${%s} is not set; set it or write the path out", p, missing)
	}
	if strings.Contains(out, "${") {
		return "", invalid("profile path %q: malformed ${...}; use ${NAME} with letters, digits and _", p)
	}
	return expandHome(out, h.Home), nil
}

// expandSpec expands every path field of a profile's spec: grants, cwd,
// mounts, tmpfs targets and excludes. Environment values are taken as
// written; use pass_env to take one from the caller.
func expandSpec(s *Spec, h Host) error {
	fields := []*string{&s.Cwd}
	for i := range s.Access.Read {
		fields = append(fields, &s.Access.Read[i])
	}
	for i := range s.Access.Write {
		fields = append(fields, &s.Access.Write[i])
	}
	for i := range s.Mounts {
		fields = append(fields, &s.Mounts[i].Source, &s.Mounts[i].Target)
	}
	for i := range s.Tmpfs {
		fields = append(fields, &s.Tmpfs[i].Target)
	}
	for i := range s.Exclude {
		fields = append(fields, &s.Exclude[i])
	}
	for _, f := range fields {
		v, err := expandPath(*f, h)
		if err != nil {
			return err
		}
		*f = v
	}
	return nil
}
