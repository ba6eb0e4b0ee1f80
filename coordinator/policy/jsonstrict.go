package policy

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strconv"
	"strings"
)

// DecodeStrict decodes data, one JSON value, into v (a pointer). Before
// decoding it walks the JSON and v's type together and refuses, naming the
// JSON path (access.read[2], tmpfs[0].size):
//
//   - a field v's type does not have, including one spelled in another case
//     (Go's decoder would match "Command" to "command");
//   - a key given twice (fields without regard to case, since Go's decoder
//     lets the last one win; map keys exactly);
//   - a value of the wrong JSON type, a number out of range, null;
//   - a NUL byte (\u0000) in any string or key: no path, argument or
//     environment value can carry one (the kernel reads them as C strings),
//     so it could only fail late, in a backend, or be cut short there;
//   - anything after the value.
//
// Errors say what was expected in JSON terms, never in Go's. A field of
// type json.RawMessage is taken as is, for the caller to check.
func DecodeStrict(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	w := walker{dec: dec}
	if err := w.value(reflect.TypeOf(v).Elem(), ""); err != nil {
		return err
	}
	if _, err := dec.Token(); err != io.EOF {
		return errors.New("trailing data after the JSON object")
	}
	strict := json.NewDecoder(bytes.NewReader(data))
	strict.DisallowUnknownFields()
	return strict.Decode(v) // the custom checks of types with UnmarshalJSON
}

var rawMessage = reflect.TypeOf(json.RawMessage(nil))

// walker reads tokens and checks them against a Go type.
type walker struct{ dec *json.Decoder }

func (w walker) value(t reflect.Type, path string) error {
	if t == rawMessage {
		var raw json.RawMessage
		return w.syntax(w.dec.Decode(&raw), path)
	}
	tok, err := w.dec.Token()
	if err != nil {
		return w.syntax(err, path)
	}
	if err := noNUL(tok, path); err != nil {
		return err
	}
	if tok == nil {
		// Go reads null as "leave the field alone", which a person may not
		// mean. A pointer field's own type decides (allow: refused with its
		// own message; readonly: the default, read-only).
		if t.Kind() == reflect.Pointer {
			return nil
		}
		return &FieldError{Field: path, Remedy: "leave it out for the default, or give a value",
			Err: fmt.Errorf("%s is null: leave it out for the default, or give a value", orRoot(path))}
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.Struct:
		return w.object(tok, path, func(key string) (reflect.Type, error) { return structField(t, key, path) }, true)
	case reflect.Map:
		return w.object(tok, path, func(string) (reflect.Type, error) { return t.Elem(), nil }, false)
	case reflect.Slice, reflect.Array:
		return w.array(tok, t.Elem(), path)
	case reflect.Interface:
		return w.skip(tok, path)
	}
	return scalar(tok, t, path)
}

// object reads the members of an object whose '{' is tok; field returns
// the type of a key's value or refuses the key. foldDup: keys that differ
// only in case are duplicates (struct fields).
func (w walker) object(tok json.Token, path string, field func(string) (reflect.Type, error), foldDup bool) error {
	if tok != json.Delim('{') {
		return pathError(path, "want an object, got "+describe(tok))
	}
	seen := map[string]bool{}
	for w.dec.More() {
		kt, err := w.dec.Token()
		if err != nil {
			return w.syntax(err, path)
		}
		key := kt.(string) // the decoder allows only strings as keys
		if strings.IndexByte(key, 0) >= 0 {
			return nulError(join(path, strconv.Quote(key)))
		}
		norm := key
		if foldDup {
			norm = strings.ToLower(key)
		}
		if seen[norm] {
			return &FieldError{Field: join(path, key), Remedy: "give it once",
				Err: fmt.Errorf("%s is given more than once%s: give it once", join(path, key), foldNote(foldDup))}
		}
		seen[norm] = true
		vt, err := field(key)
		if err != nil {
			return err
		}
		if err := w.value(vt, join(path, key)); err != nil {
			return err
		}
	}
	_, err := w.dec.Token() // '}'
	return w.syntax(err, path)
}

func (w walker) array(tok json.Token, elem reflect.Type, path string) error {
	if tok != json.Delim('[') {
		return pathError(path, "want an array, got "+describe(tok))
	}
	for i := 0; w.dec.More(); i++ {
		if err := w.value(elem, fmt.Sprintf("%s[%d]", path, i)); err != nil {
			return err
		}
	}
	_, err := w.dec.Token() // ']'
	return w.syntax(err, path)
}

// skip consumes the rest of a value whose first token was tok.
func (w walker) skip(tok json.Token, path string) error {
	if d, ok := tok.(json.Delim); !ok || (d != '{' && d != '[') {
		return nil
	}
	for depth := 1; depth > 0; {
		t, err := w.dec.Token()
		if err != nil {
			return w.syntax(err, path)
		}
		if err := noNUL(t, path); err != nil {
			return err
		}
		switch t {
		case json.Delim('{'), json.Delim('['):
			depth++
		case json.Delim('}'), json.Delim(']'):
			depth--
		}
	}
	return nil
}

func (w walker) syntax(err error, path string) error {
	if err == nil {
		return nil
	}
	if err == io.EOF || err == io.ErrUnexpectedEOF {
		return pathError(path, "the JSON ends too early")
	}
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return fmt.Errorf("not valid JSON at byte %d (near %s): %s", se.Offset, orRoot(path), strings.TrimPrefix(se.Error(), "json: "))
	}
	return pathError(path, strings.TrimPrefix(err.Error(), "json: "))
}

// noNUL refuses a string token that holds a NUL byte.
func noNUL(tok json.Token, path string) error {
	if s, ok := tok.(string); ok && strings.IndexByte(s, 0) >= 0 {
		return nulError(path)
	}
	return nil
}

func nulError(path string) error {
	return pathError(path, `holds a NUL byte (\u0000), which no path, argument or environment value can carry: remove it`)
}

// jsonName is the name encoding/json gives f, and false when it skips f
// (unexported, or tagged "-"): the decoder's check and the NUL walk must
// agree with encoding/json on which fields exist.
func jsonName(f reflect.StructField) (string, bool) {
	name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
	if !f.IsExported() || name == "-" {
		return "", false
	}
	if name == "" {
		name = f.Name
	}
	return name, true
}

// structField finds key among t's JSON field names, exactly.
func structField(t reflect.Type, key, path string) (reflect.Type, error) {
	var names []string
	for i := range t.NumField() {
		f := t.Field(i)
		name, ok := jsonName(f)
		if !ok {
			continue
		}
		if name == key {
			return f.Type, nil
		}
		names = append(names, name)
	}
	where := "at the top level"
	if path != "" {
		where = "in " + path
	}
	return nil, &FieldError{Field: join(path, key), Remedy: "correct or remove it",
		Err: fmt.Errorf("unknown field %q %s; the fields there are %s (docs/spec.schema.json): correct or remove it", key, where, strings.Join(names, ", "))}
}

func foldNote(fold bool) string {
	if fold {
		return " (field names match without regard to case, and the last would win)"
	}
	return ""
}

// scalar checks a string, boolean or number token against kind t.
func scalar(tok json.Token, t reflect.Type, path string) error {
	switch t.Kind() {
	case reflect.String:
		if _, ok := tok.(string); ok {
			return nil
		}
		return pathError(path, "want a string, got "+describe(tok))
	case reflect.Bool:
		if _, ok := tok.(bool); ok {
			return nil
		}
		return pathError(path, "want true or false, got "+describe(tok))
	}
	n, ok := tok.(json.Number)
	if !ok {
		return pathError(path, "want a number, got "+describe(tok))
	}
	return number(string(n), t, path)
}

func number(n string, t reflect.Type, path string) error {
	bits := t.Bits()
	switch t.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		if _, err := strconv.ParseInt(n, 10, bits); err != nil {
			lo := int64(-1) << (bits - 1)
			return pathError(path, fmt.Sprintf("want a whole number from %d to %d, got %s", lo, ^lo, n))
		}
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		if _, err := strconv.ParseUint(n, 10, bits); err != nil {
			return pathError(path, fmt.Sprintf("want a whole number from 0 to %d, got %s", uint64(1)<<bits-1, n))
		}
	case reflect.Float32, reflect.Float64:
		if _, err := strconv.ParseFloat(n, bits); err != nil {
			return pathError(path, "want a number, got "+n)
		}
	default:
		return pathError(path, "a number is not accepted here")
	}
	return nil
}

// describe names a token's JSON type for messages.
func describe(tok json.Token) string {
	switch v := tok.(type) {
	case string:
		return "a string"
	case bool:
		return strconv.FormatBool(v)
	case json.Number:
		return "the number " + string(v)
	case json.Delim:
		if v == '{' {
			return "an object"
		}
		return "an array"
	}
	return "null"
}

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

func orRoot(path string) string {
	if path == "" {
		return "the top level"
	}
	return path
}

func pathError(path, msg string) error {
	return &FieldError{Field: path, Err: fmt.Errorf("%s: %s", orRoot(path), msg)}
}

// CheckNoNUL refuses a NUL byte in any string of v (a spec built from
// flags, a profile and a spec file together), naming its JSON path, as
// DecodeStrict does for JSON. Command-line arguments cannot carry one
// (the kernel passes them as C strings); this holds the rule for every
// way a spec is built.
func CheckNoNUL(v any) error {
	rv := reflect.ValueOf(v)
	if !hasNUL(rv) { // the usual answer, without a path built for every field
		return nil
	}
	if err := noNULValue(rv, ""); err != nil {
		return fmt.Errorf("%w: %w", ErrInvalid, err)
	}
	return nil
}

// hasNUL is noNULValue's walk without the paths: whether it would refuse.
func hasNUL(v reflect.Value) bool {
	switch v.Kind() {
	case reflect.String:
		return strings.IndexByte(v.String(), 0) >= 0
	case reflect.Pointer, reflect.Interface:
		return !v.IsNil() && hasNUL(v.Elem())
	case reflect.Slice, reflect.Array:
		for i := range v.Len() {
			if hasNUL(v.Index(i)) {
				return true
			}
		}
	case reflect.Map:
		for it := v.MapRange(); it.Next(); {
			if strings.IndexByte(fmt.Sprint(it.Key().Interface()), 0) >= 0 || hasNUL(it.Value()) {
				return true
			}
		}
	case reflect.Struct:
		t := v.Type()
		for i := range t.NumField() {
			if _, ok := jsonName(t.Field(i)); ok && hasNUL(v.Field(i)) {
				return true
			}
		}
	}
	return false
}

func noNULValue(v reflect.Value, path string) error {
	switch v.Kind() {
	case reflect.String:
		if strings.IndexByte(v.String(), 0) >= 0 {
			return nulError(path)
		}
	case reflect.Pointer, reflect.Interface:
		if !v.IsNil() {
			return noNULValue(v.Elem(), path)
		}
	case reflect.Slice, reflect.Array:
		for i := range v.Len() {
			if err := noNULValue(v.Index(i), fmt.Sprintf("%s[%d]", path, i)); err != nil {
				return err
			}
		}
	case reflect.Map:
		for it := v.MapRange(); it.Next(); {
			k := fmt.Sprint(it.Key().Interface())
			if strings.IndexByte(k, 0) >= 0 {
				return nulError(join(path, strconv.Quote(k)))
			}
			if err := noNULValue(it.Value(), join(path, k)); err != nil {
				return err
			}
		}
	case reflect.Struct:
		return noNULStruct(v, path)
	}
	return nil
}

func noNULStruct(v reflect.Value, path string) error {
	t := v.Type()
	for i := range t.NumField() {
		name, ok := jsonName(t.Field(i))
		if !ok {
			continue
		}
		if err := noNULValue(v.Field(i), join(path, name)); err != nil {
			return err
		}
	}
	return nil
}
