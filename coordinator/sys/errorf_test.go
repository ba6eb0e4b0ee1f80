package sys

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// flattenAllowed lists files that still format an error with %v or %s, with
// their count of such sites. They belong to other parts of the restructuring
// (issue 12); the lead empties this map once they are swept. A file must not
// gain sites, and a file that reaches zero must leave the map.
var flattenAllowed = map[string]int{}

// TestErrorfKeepsCauses guards the rule that errors wrap their cause with
// %w: a fmt.Errorf that formats an error with %v or %s flattens it to text,
// and errors.Is(err, unix.EACCES) or a sentinel check then fails silently.
//
// The check is syntactic (go/ast, no type checking, so no new dependency):
// an argument counts as an error when it is an identifier or field named
// err, fooErr or fooerr, or a call to os.NewSyscallError, errors.New or
// fmt.Errorf. Wrap with %w instead; if the text alone is wanted on purpose,
// pass err.Error().
func TestErrorfKeepsCauses(t *testing.T) {
	root := repoRoot(t)
	got := map[string][]string{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && path != root && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") {
			return nil
		}
		rel, _ := filepath.Rel(root, path)
		for _, site := range flattenSites(t, path) {
			got[filepath.ToSlash(rel)] = append(got[filepath.ToSlash(rel)], site)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	files := make([]string, 0, len(got))
	for f := range got {
		files = append(files, f)
	}
	sort.Strings(files)
	for _, f := range files {
		if n, ok := flattenAllowed[f]; ok && len(got[f]) <= n {
			continue
		}
		t.Errorf("%s formats an error with %%v or %%s (wrap it with %%w):\n\t%s", f, strings.Join(got[f], "\n\t"))
	}
	for f, n := range flattenAllowed {
		if len(got[f]) < n {
			t.Errorf("%s now has %d flattening sites, not %d: lower or remove its entry in flattenAllowed", f, len(got[f]), n)
		}
	}
}

// repoRoot is the directory holding go.mod above this package.
func repoRoot(t *testing.T) string {
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		up := filepath.Dir(dir)
		if up == dir {
			t.Fatal("no go.mod above the test's directory")
		}
		dir = up
	}
}

// flattenSites returns "line: call" for each fmt.Errorf in path that formats
// an error-looking argument with %v or %s.
func flattenSites(t *testing.T, path string) []string {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, path, nil, 0)
	if err != nil {
		t.Fatalf("parsing %s: %v", path, err.Error())
	}
	var sites []string
	ast.Inspect(f, func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if !ok || !isCall(call.Fun, "fmt", "Errorf") || len(call.Args) == 0 {
			return true
		}
		format, ok := stringLit(call.Args[0])
		if !ok {
			return true
		}
		for i, verb := range verbs(format) {
			if i+1 < len(call.Args) && (verb == 'v' || verb == 's') && looksLikeError(call.Args[i+1]) {
				sites = append(sites, fmt.Sprintf("line %d: %%%c of %s", fset.Position(call.Pos()).Line, verb, render(call.Args[i+1])))
			}
		}
		return true
	})
	return sites
}

// verbs lists the verb letter of each argument-consuming directive of format
// (%% consumes none; a * width or precision consumes one, shown as '*').
func verbs(format string) []rune {
	var out []rune
	for i := 0; i < len(format); i++ {
		if format[i] != '%' {
			continue
		}
		for i++; i < len(format); i++ {
			c := rune(format[i])
			if c == '*' {
				out = append(out, '*')
				continue
			}
			if strings.ContainsRune("+-# 0123456789.[]", c) {
				continue
			}
			if c != '%' {
				out = append(out, c)
			}
			break
		}
	}
	return out
}

var errName = regexp.MustCompile(`^(err|.*Err|.*err)$`)

// looksLikeError reports whether e is, by its name or its maker, an error.
func looksLikeError(e ast.Expr) bool {
	switch x := e.(type) {
	case *ast.Ident:
		return errName.MatchString(x.Name)
	case *ast.SelectorExpr:
		return errName.MatchString(x.Sel.Name)
	case *ast.CallExpr:
		return isCall(x.Fun, "os", "NewSyscallError") || isCall(x.Fun, "errors", "New") || isCall(x.Fun, "fmt", "Errorf")
	case *ast.ParenExpr:
		return looksLikeError(x.X)
	}
	return false
}

func isCall(fun ast.Expr, pkg, name string) bool {
	sel, ok := fun.(*ast.SelectorExpr)
	if !ok || sel.Sel.Name != name {
		return false
	}
	id, ok := sel.X.(*ast.Ident)
	return ok && id.Name == pkg
}

// stringLit is the value of a string literal or a + of them.
func stringLit(e ast.Expr) (string, bool) {
	switch x := e.(type) {
	case *ast.BasicLit:
		if x.Kind != token.STRING {
			return "", false
		}
		s, err := strconv.Unquote(x.Value)
		return s, err == nil
	case *ast.BinaryExpr:
		l, ok1 := stringLit(x.X)
		r, ok2 := stringLit(x.Y)
		return l + r, ok1 && ok2 && x.Op == token.ADD
	case *ast.ParenExpr:
		return stringLit(x.X)
	}
	return "", false
}

// render renders e briefly for the failure message.
func render(e ast.Expr) string {
	switch x := e.(type) {
	case *ast.Ident:
		return x.Name
	case *ast.SelectorExpr:
		return render(x.X) + "." + x.Sel.Name
	case *ast.CallExpr:
		return render(x.Fun) + "(...)"
	}
	return "an expression"
}
