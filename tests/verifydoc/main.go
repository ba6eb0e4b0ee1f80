// Command verifydoc joins `acbox selftest --json` output of several
// backends into the probe table of docs/verification.md:
//
//	go run ./tests/verifydoc native=native.jsonl docker=docker.jsonl
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"strings"
)

type line struct {
	ID       string `json:"id"`
	Category string `json:"category"`
	Result   string `json:"result"`
	Expect   string `json:"expect"`
}

func main() {
	var names []string
	results := map[string]map[string]string{}
	var order []line
	seen := map[string]bool{}
	for _, arg := range os.Args[1:] {
		name, file, ok := strings.Cut(arg, "=")
		if !ok {
			fmt.Fprintln(os.Stderr, "usage: verifydoc NAME=FILE...")
			os.Exit(2)
		}
		names = append(names, name)
		results[name] = map[string]string{}
		for _, l := range read(file) {
			results[name][l.ID] = l.Result
			if !seen[l.ID] {
				seen[l.ID] = true
				order = append(order, l)
			}
		}
	}
	fmt.Printf("| probe | category | %s | passes when |\n|---|---|%s---|\n", strings.Join(names, " | "), strings.Repeat("---|", len(names)))
	for _, l := range order {
		var cells []string
		for _, n := range names {
			r := results[n][l.ID]
			if r == "" {
				r = "-"
			}
			cells = append(cells, r)
		}
		fmt.Printf("| `%s` | %s | %s | %s |\n", l.ID, l.Category, strings.Join(cells, " | "), strings.ReplaceAll(l.Expect, "|", "/"))
	}
}

func read(file string) []line {
	f, err := os.Open(file)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	defer f.Close()
	var out []line
	s := bufio.NewScanner(f)
	s.Buffer(make([]byte, 1<<20), 1<<20)
	for s.Scan() {
		var l line
		if json.Unmarshal(s.Bytes(), &l) == nil && l.ID != "" {
			out = append(out, l)
		}
	}
	return out
}
