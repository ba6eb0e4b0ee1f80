package policy

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"strconv"
	"strings"
)

// checkReadsAsDefault refuses a key given a value that decodes like the
// key left out (the default) though it reads as a request: "" for any
// string key with a default ("cwd": "", "limits": {"memory": ""},
// "image": "", "tmpfs": [{"size": ""}]) and 0 for a count with a default
// ("limits": {"pids": 0} is 1024, not none). The command line refuses the
// same values (cmd/acbox parse.go), so a key means one thing whichever
// way it is given.
func checkReadsAsDefault(data []byte) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if dec.Decode(&v) != nil {
		return nil // DecodeStrict has read it already; this cannot fail
	}
	if obj, _ := v.(map[string]any); obj != nil {
		if n, ok := obj["version"].(json.Number); ok && n != json.Number(strconv.Itoa(SpecVersion)) {
			ver, _ := n.Int64()
			return versionError(int(ver)) // "version": 0 too: absent means 1, 0 means nothing
		}
	}
	return readsAsDefault(v, reflect.TypeOf(Spec{}), "")
}

func readsAsDefault(v any, t reflect.Type, path string) error {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.Struct:
		obj, _ := v.(map[string]any)
		for i := range t.NumField() {
			f := t.Field(i)
			name, ok := jsonName(f)
			fv, given := obj[name]
			if !ok || !given {
				continue
			}
			p := join(path, name)
			if strings.Contains(f.Tag.Get("json"), ",omitempty") {
				if err := zeroScalar(fv, f.Type.Kind(), p); err != nil {
					return AtField(p, err)
				}
			}
			if err := readsAsDefault(fv, f.Type, p); err != nil {
				return err
			}
		}
	case reflect.Slice:
		arr, _ := v.([]any)
		for i, e := range arr {
			if err := readsAsDefault(e, t.Elem(), fmt.Sprintf("%s[%d]", path, i)); err != nil {
				return err
			}
		}
	}
	return nil
}

// zeroScalar refuses "" for a string key and 0 for a number key.
func zeroScalar(v any, k reflect.Kind, path string) error {
	switch {
	case k == reflect.String && v == "":
		if path == "cwd" {
			return invalid(`spec: cwd is "": leave it out for the default (the launch directory when it is granted, else the private home), or name a directory`)
		}
		return emptyValueError(path, `""`)
	case k >= reflect.Int && k <= reflect.Uint64 && v == json.Number("0"):
		if path == "limits.pids" {
			return invalid("spec: limits.pids is 0: leave it out for the default (%d), or give a positive count", DefaultPids)
		}
		return emptyValueError(path, "0")
	}
	return nil
}
