package policy

import (
	"encoding/json"
	"fmt"
	"os"
	"reflect"
	"sort"
	"strings"
	"testing"
)

// schema is the subset of JSON Schema that docs/spec.schema.json uses.
type schema struct {
	Type       string             `json:"type"`
	Properties map[string]*schema `json:"properties"`
	Items      *schema            `json:"items"`
	Required   []string           `json:"required"`
	Enum       []string           `json:"enum"`
	MinItems   int                `json:"minItems"`
	Minimum    *float64           `json:"minimum"`
	Maximum    *float64           `json:"maximum"`
	Additional json.RawMessage    `json:"additionalProperties"`
}

func loadSchema(t *testing.T) *schema {
	b, err := os.ReadFile("../../docs/spec.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	var s schema
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatal(err)
	}
	return &s
}

// validate checks v (decoded JSON) against s and returns the first error.
func (s *schema) validate(v any, at string) error {
	switch s.Type {
	case "object":
		return s.validateObject(v, at)
	case "array":
		a, ok := v.([]any)
		if !ok || len(a) < s.MinItems {
			return fmt.Errorf("%s: want an array of at least %d", at, s.MinItems)
		}
		for i, e := range a {
			if err := s.Items.validate(e, fmt.Sprintf("%s[%d]", at, i)); err != nil {
				return err
			}
		}
	case "string":
		str, ok := v.(string)
		if !ok || (len(s.Enum) > 0 && !contains(s.Enum, str)) {
			return fmt.Errorf("%s: want a string in %v", at, s.Enum)
		}
	case "integer":
		n, ok := v.(float64)
		if !ok || n != float64(int64(n)) || (s.Minimum != nil && n < *s.Minimum) || (s.Maximum != nil && n > *s.Maximum) {
			return fmt.Errorf("%s: want an integer in range", at)
		}
	case "boolean":
		if _, ok := v.(bool); !ok {
			return fmt.Errorf("%s: want a boolean", at)
		}
	}
	return nil
}

func (s *schema) validateObject(v any, at string) error {
	m, ok := v.(map[string]any)
	if !ok {
		return fmt.Errorf("%s: want an object", at)
	}
	for _, r := range s.Required {
		if _, ok := m[r]; !ok {
			return fmt.Errorf("%s: %q is required", at, r)
		}
	}
	var extra schema
	hasExtra := json.Unmarshal(s.Additional, &extra) == nil && extra.Type != ""
	for k, e := range m {
		p := s.Properties[k]
		if p == nil && hasExtra {
			p = &extra
		}
		if p == nil {
			return fmt.Errorf("%s: unknown field %q", at, k)
		}
		if err := p.validate(e, at+"."+k); err != nil {
			return err
		}
	}
	return nil
}

func contains(s []string, v string) bool {
	for _, e := range s {
		if e == v {
			return true
		}
	}
	return false
}

func TestSchemaValidatesSpecs(t *testing.T) {
	s := loadSchema(t)
	cases := []struct {
		spec string
		ok   bool
	}{
		{`{"backend":"native","command":["pi","--mode","rpc"],"cwd":"/repo/parser","access":{"read":["/repo/docs"],"write":["/repo/parser"],"network":{"mode":"proxy","allow":["api.example.com","*.example.org:8443"]}},"mounts":[{"source":"/opt/pi","target":"/opt/pi","readonly":true}],"tmpfs":[{"target":"/home/u/.pi/agent","size":"64MiB"}],"env":{"LANG":"C.UTF-8"},"tty":false,"limits":{"memory":"2GiB","pids":1024},"image":"member-image:tag","labels":{"team":"t1","member":"m1"}}`, true},
		{`{"command":[]}`, false},
		{`{"command":["x"],"backend":"vm"}`, false},
		{`{"command":["x"],"access":{"network":{"mode":"open"}}}`, false},
		{`{"command":["x"],"limits":{"pids":1.5}}`, false},
		{`{"command":["x"],"colour":"red"}`, false},
		{`{"command":["x"],"env":{"A":1}}`, false},
	}
	for _, c := range cases {
		var v any
		json.Unmarshal([]byte(c.spec), &v)
		err := s.validate(v, "spec")
		if (err == nil) != c.ok {
			t.Errorf("%s: schema says %v", c.spec, err)
		}
		if c.ok {
			if _, err := ParseSpec(strings.NewReader(c.spec)); err != nil {
				t.Errorf("schema accepts but ParseSpec refuses: %v", err)
			}
		}
	}
}

// TestSchemaMatchesSpecType keeps docs/spec.schema.json and Spec in step:
// every JSON field of the Go type is in the schema and nothing else is.
func TestSchemaMatchesSpecType(t *testing.T) {
	s := loadSchema(t)
	compareFields(t, "spec", reflect.TypeOf(Spec{}), s)
}

func compareFields(t *testing.T, at string, typ reflect.Type, s *schema) {
	for typ.Kind() == reflect.Pointer || typ.Kind() == reflect.Slice {
		typ = typ.Elem()
		if s.Items != nil {
			s = s.Items
		}
	}
	if typ.Kind() != reflect.Struct {
		return
	}
	var goFields, schemaFields []string
	for i := 0; i < typ.NumField(); i++ {
		f := typ.Field(i)
		name := strings.Split(f.Tag.Get("json"), ",")[0]
		if name == "" || name == "-" {
			continue
		}
		goFields = append(goFields, name)
		if p := s.Properties[name]; p != nil {
			compareFields(t, at+"."+name, f.Type, p)
		}
	}
	for k := range s.Properties {
		schemaFields = append(schemaFields, k)
	}
	sort.Strings(goFields)
	sort.Strings(schemaFields)
	if strings.Join(goFields, ",") != strings.Join(schemaFields, ",") {
		t.Errorf("%s: Go fields %v, schema fields %v: update docs/spec.schema.json", at, goFields, schemaFields)
	}
}
