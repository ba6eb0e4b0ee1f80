package registry

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"

	"github.com/acbox/acbox/coordinator/policy"
)

// appendJSON appends e as json.Marshal writes it, compact, by hand:
// json.MarshalIndent's reflection over Entry and its second pass over the
// whole entry (re-indenting the plan) were most of what writing an entry
// cost a launch. TestEntryJSONMatches and FuzzEntryJSON hold the two
// together. Access and Plan are written as they are once checked to be
// JSON (json.Marshal would also compact them; theirs, from NewEntry or an
// entry read back, are compact already); a raw field that is not JSON is
// refused, as json.Marshal refuses it.
func (e *Entry) appendJSON(b []byte) ([]byte, error) {
	b = append(b, `{"id":`...)
	b = policy.AppendJSONString(b, e.ID)
	b = append(b, `,"backend":`...)
	b = policy.AppendJSONString(b, e.Backend)
	b = appendInt(b, `,"uid":`, int64(e.UID))
	b = appendInt(b, `,"owner_pid":`, int64(e.OwnerPid))
	b = appendUint(b, `,"owner_start":`, e.OwnerStart)
	if e.PidNS != 0 {
		b = appendUint(b, `,"pid_ns":`, e.PidNS)
	}
	if e.HelperPid != 0 {
		b = appendInt(b, `,"helper_pid":`, int64(e.HelperPid))
	}
	if e.HelperStart != 0 {
		b = appendUint(b, `,"helper_start":`, e.HelperStart)
	}
	b, err := appendRaw(b, `,"access":`, e.Access)
	if err != nil {
		return nil, err
	}
	if len(e.Labels) > 0 {
		b = appendLabels(append(b, `,"labels":`...), e.Labels)
	}
	b = appendInt(b, `,"memory":`, e.Memory)
	b = appendInt(b, `,"pids":`, int64(e.Pids))
	t, err := e.Started.MarshalJSON()
	if err != nil {
		return nil, fmt.Errorf("entry %s: started: %w", e.ID, err)
	}
	b = append(append(b, `,"started":`...), t...)
	if e.Parent != "" {
		b = policy.AppendJSONString(append(b, `,"parent":`...), e.Parent)
	}
	if e.Depth != 0 {
		b = appendInt(b, `,"depth":`, int64(e.Depth))
	}
	if e.Within {
		b = append(b, `,"within":true`...)
	}
	if b, err = appendRaw(b, `,"plan":`, e.Plan); err != nil {
		return nil, err
	}
	return append(b, '}'), nil
}

func appendInt(b []byte, key string, n int64) []byte {
	return strconv.AppendInt(append(b, key...), n, 10)
}

func appendUint(b []byte, key string, n uint64) []byte {
	return strconv.AppendUint(append(b, key...), n, 10)
}

// appendRaw appends key and raw, omitted when empty (omitempty).
func appendRaw(b []byte, key string, raw json.RawMessage) ([]byte, error) {
	if len(raw) == 0 {
		return b, nil
	}
	if !validCompact(raw) && !json.Valid(raw) {
		return nil, fmt.Errorf("registry entry: %s is not JSON", key[2:len(key)-2])
	}
	return append(append(b, key...), raw...), nil
}

// appendLabels appends the labels as encoding/json writes a map: keys in
// byte order.
func appendLabels(b []byte, m map[string]string) []byte {
	b = append(b, '{')
	for i, k := range slices.Sorted(maps.Keys(m)) {
		if i > 0 {
			b = append(b, ',')
		}
		b = policy.AppendJSONString(b, k)
		b = policy.AppendJSONString(append(b, ':'), m[k])
	}
	return append(b, '}')
}
