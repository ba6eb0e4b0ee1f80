package engine

import (
	"encoding/json"
	"os"
	"reflect"
	"strings"
	"testing"
)

// The goldens are Docker 20.10.24's answers (API 1.41), unedited:
// inspect-tampered.json is a container created (never started) with every
// option the backend's inspection refuses: privileged, capabilities
// added, ports published and exposed, devices, a GPU request, host
// namespaces, links, sysctls, volumes-from, binds, an anonymous volume,
// no auto-remove, a restart policy and more. inspect-running.json is a
// started container with a published port.
var goldens = []string{"testdata/inspect-tampered.json", "testdata/inspect-running.json"}

// omittedByDaemon are fields the daemon leaves out when they are empty,
// so no golden shows them. Each is compared with a value acbox sets, or
// with absence, so a misspelling fails closed: the request's binds
// (rprivate, no volume or tmpfs options) would differ from the plan.
var omittedByDaemon = map[string]bool{
	"HostConfig.Mounts.VolumeOptions":           true,
	"HostConfig.Mounts.TmpfsOptions":            true,
	"HostConfig.Mounts.BindOptions.Propagation": true,
}

// TestInspectFieldNames requires that every field InspectResponse decodes
// is a key of a real daemon's answer: a misspelt name would leave the
// field zero, and a check such as "not privileged" would pass unseen.
func TestInspectFieldNames(t *testing.T) {
	var raws []any
	for _, g := range goldens {
		raws = append(raws, readJSON(t, g))
	}
	walkFields(t, reflect.TypeOf(InspectResponse{}), raws, "")
}

func walkFields(t *testing.T, typ reflect.Type, raws []any, path string) {
	for typ.Kind() == reflect.Pointer || typ.Kind() == reflect.Slice {
		typ = typ.Elem()
		raws = elems(raws)
	}
	if typ.Kind() != reflect.Struct {
		return
	}
	for i := range typ.NumField() {
		f := typ.Field(i)
		if f.Anonymous { // inlined, as Resources in HostConfig
			walkFields(t, f.Type, raws, path)
			continue
		}
		name := jsonName(f)
		sub := join(path, name)
		vals := member(raws, name)
		if len(vals) == 0 && !omittedByDaemon[sub] {
			t.Errorf("%s (Go field %s) is in no daemon answer: misspelt?", sub, f.Name)
		}
		walkFields(t, f.Type, vals, sub)
	}
}

// member is the value named name in each object of raws that has it.
func member(raws []any, name string) []any {
	var out []any
	for _, r := range raws {
		if m, ok := r.(map[string]any); ok {
			if v, ok := m[name]; ok {
				out = append(out, v)
			}
		}
	}
	return out
}

// elems is every element of the arrays in raws, and the non-array values.
func elems(raws []any) []any {
	var out []any
	for _, r := range raws {
		if a, ok := r.([]any); ok {
			out = append(out, a...)
		} else if r != nil {
			out = append(out, r)
		}
	}
	return out
}

func jsonName(f reflect.StructField) string {
	name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
	if name == "" {
		return f.Name
	}
	return name
}

func join(path, name string) string {
	if path == "" {
		return name
	}
	return path + "." + name
}

func readJSON(t *testing.T, path string) any {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatal(err)
	}
	return v
}

// TestInspectDecodesTampered reads the tampered golden into
// InspectResponse and requires each refused setting to come through.
func TestInspectDecodesTampered(t *testing.T) {
	b, err := os.ReadFile(goldens[0])
	if err != nil {
		t.Fatal(err)
	}
	var in InspectResponse
	if err := json.Unmarshal(b, &in); err != nil {
		t.Fatal(err)
	}
	h, c := in.HostConfig, in.Config
	checks := map[string]bool{
		"PortBindings": len(h.PortBindings) == 1, "PublishAllPorts": h.PublishAllPorts, "Privileged": h.Privileged,
		"CapAdd": len(h.CapAdd) == 1, "PidMode": h.PidMode == "host", "UTSMode": h.UTSMode == "host",
		"UsernsMode": h.UsernsMode == "host", "CgroupnsMode": h.CgroupnsMode == "host", "Devices": len(h.Devices) == 1,
		"DeviceRequests": len(h.DeviceRequests) == 1 && h.DeviceRequests[0].Count == -1, "DeviceCgroupRules": len(h.DeviceCgroupRules) == 1,
		"GroupAdd": len(h.GroupAdd) == 1, "VolumesFrom": len(h.VolumesFrom) == 1, "Binds": len(h.Binds) == 1,
		"VolumeDriver": h.VolumeDriver == "local", "Links": len(h.Links) == 1, "Sysctls": len(h.Sysctls) == 1,
		"OomKillDisable": h.OomKillDisable != nil && *h.OomKillDisable, "CgroupParent": h.CgroupParent != "",
		"PidsLimit": h.PidsLimit != nil && *h.PidsLimit == 10, "Memory": h.Memory == 64<<20, "MemorySwap": h.MemorySwap == 128<<20,
		"RestartPolicy": h.RestartPolicy.Name == "on-failure", "LogConfig": h.LogConfig.Type == "json-file",
		"Init": h.Init != nil && *h.Init, "Tmpfs": h.Tmpfs["/x"] == "size=1m", "ReadonlyRootfs": h.ReadonlyRootfs,
		"Mounts":       len(h.Mounts) == 1 && h.Mounts[0].BindOptions != nil && h.Mounts[0].BindOptions.NonRecursive && h.Mounts[0].ReadOnly,
		"ExposedPorts": len(c.ExposedPorts) == 2, "Volumes": len(c.Volumes) == 1, "User": c.User == "1:1",
		"Entrypoint": len(c.Entrypoint) == 1, "Healthcheck": c.Healthcheck != nil && len(c.Healthcheck.Test) == 2,
		"made mounts": len(in.Mounts) == 3,
	}
	for name, ok := range checks {
		if !ok {
			t.Errorf("%s did not come through from the daemon's answer", name)
		}
	}
}
