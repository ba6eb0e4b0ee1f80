package policy

import (
	"encoding/json"
	"math/rand/v2"
	"reflect"
	"testing"
)

// TestPlanJSONMatches: AppendPlanJSON writes json.Marshal's bytes for plans
// whose every exported field, at every depth, is at random left zero, nil,
// empty or filled (strings that need escaping included). A field added to a
// plan type and not to AppendPlanJSON fails it.
func TestPlanJSONMatches(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for i := range 3000 {
		var p Plan
		fillRandom(r, reflect.ValueOf(&p).Elem(), i < 8)
		checkPlanJSON(t, &p)
	}
	checkPlanJSON(t, &Plan{})
}

func checkPlanJSON(t *testing.T, p *Plan) {
	t.Helper()
	want, err := json.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	if got := AppendPlanJSON(nil, p); string(got) != string(want) {
		t.Fatalf("got  %s\nwant %s", got, want)
	}
}

var fillStrings = []string{"", "a", "/home/x/.ssh", "<&>\u2028\"\\\x01", "\xff", "é"}

// fillRandom sets v's exported fields at random; full sets every one.
func fillRandom(r *rand.Rand, v reflect.Value, full bool) {
	pick := func() bool { return full || r.IntN(3) > 0 }
	switch v.Kind() {
	case reflect.String:
		if pick() {
			v.SetString(fillStrings[1+r.IntN(len(fillStrings)-1)])
		}
	case reflect.Bool:
		v.SetBool(pick())
	case reflect.Int, reflect.Int64:
		if pick() {
			v.SetInt(r.Int64N(1<<40) - 1<<39)
		}
	case reflect.Uint64, reflect.Uint16:
		if pick() {
			v.SetUint(uint64(r.IntN(65535) + 1))
		}
	case reflect.Slice:
		if !pick() {
			if r.IntN(2) == 0 {
				v.Set(reflect.MakeSlice(v.Type(), 0, 0))
			}
			return
		}
		n := 1 + r.IntN(3)
		s := reflect.MakeSlice(v.Type(), n, n)
		for i := range n {
			fillRandom(r, s.Index(i), full)
		}
		v.Set(s)
	case reflect.Map:
		if !pick() {
			if r.IntN(2) == 0 {
				v.Set(reflect.MakeMap(v.Type()))
			}
			return
		}
		m := reflect.MakeMap(v.Type())
		for range 1 + r.IntN(3) {
			k, e := reflect.New(v.Type().Key()).Elem(), reflect.New(v.Type().Elem()).Elem()
			fillRandom(r, k, true)
			fillRandom(r, e, full)
			m.SetMapIndex(k, e)
		}
		v.Set(m)
	case reflect.Pointer:
		if pick() {
			p := reflect.New(v.Type().Elem())
			fillRandom(r, p.Elem(), full)
			v.Set(p)
		}
	case reflect.Struct:
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				fillRandom(r, v.Field(i), full)
			}
		}
	default:
		panic("fillRandom: no case for " + v.Type().String())
	}
}
