package rules_test

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shipshape-dev/shipshape/internal/analysis"
	"github.com/shipshape-dev/shipshape/internal/engine"
	"github.com/shipshape-dev/shipshape/internal/fixer"
	"github.com/shipshape-dev/shipshape/internal/manifest"
	"github.com/shipshape-dev/shipshape/rules"
)

var update = flag.Bool("update", false, "rewrite the *.fixed.yaml files under testdata/ambiguous-scalar")

// lintAmbiguous lints one file and returns its ambiguous-scalar findings as
// "line:col field: message", fixable ones ending in " [fix]".
func lintAmbiguous(t *testing.T, name string, src []byte) ([]string, []analysis.Finding) {
	t.Helper()
	eng, err := engine.New(rules.All(), nil, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	f := manifest.Parse(name, src, manifest.Context{})
	if len(f.Errors) > 0 {
		t.Fatalf("%s does not parse: %v", name, f.Errors)
	}
	fs := eng.LintObjects(f.Objects)
	analysis.Sort(fs)
	var out []string
	var mine []analysis.Finding
	for _, fd := range fs {
		if fd.Rule != "ambiguous-scalar" {
			continue
		}
		s := fmt.Sprintf("%d:%d %s: %s", fd.Line, fd.Column, fd.Field, fd.Message)
		if fd.Fix != nil {
			s += " [fix]"
		}
		out = append(out, s)
		mine = append(mine, fd)
	}
	return out, mine
}

// TestAmbiguousAliasesAndTags covers what kubectl reads through an alias
// (the node its anchor names) and from an explicitly tagged scalar (the
// tag's type, whatever the quoting), in string positions and out of them.
// A fixture with fixable findings has them applied to its bytes, compared
// with its .fixed.yaml (go test ./rules -run Ambiguous -update rewrites it),
// and the fixed file must lint without a fixable finding.
func TestAmbiguousAliasesAndTags(t *testing.T) {
	const readAs = "kubectl (YAML 1.1) reads as "
	tests := []struct {
		file string
		want []string
	}{
		{"aliases.yaml", []string{
			// The anchor is in an integer field: reported, not fixed.
			`12:19 spec.template.metadata.labels.replicas: alias *replicas stands for 3, which ` + readAs +
				`number 3, not the string "3": write "3" instead of the alias, or quote the anchored value if every use of &replicas wants a string`,
			// Every use of &version and &debug is a string: quoting the anchor fixes them all.
			`17:18 spec.template.metadata.labels.version: unquoted value 1.10 is read by kubectl (YAML 1.1) as number 1.1, not the string "1.10": quote it ("1.10") [fix]`,
			`22:18 spec.template.spec.containers[0].args[0]: unquoted value on is read by kubectl (YAML 1.1) as boolean true, not the string "on": quote it ("on") [fix]`,
			`22:29 spec.template.spec.containers[0].args[1]: alias *debug stands for on, which ` + readAs +
				`boolean true, not the string "on": quote the anchored value (&debug "on") [fix]`,
			`22:37 spec.template.spec.containers[0].args[2]: alias *version stands for 1.10, which ` + readAs +
				`number 1.1, not the string "1.10": quote the anchored value (&version "1.10") [fix]`,
			`25:22 spec.template.spec.containers[0].env[0].value: alias *version stands for 1.10, which ` + readAs +
				`number 1.1, not the string "1.10": quote the anchored value (&version "1.10") [fix]`,
			`31:5 metadata.annotations.on: alias key *debug stands for on, which ` + readAs +
				`boolean true, so the key becomes "true", not "on": quote the anchored value (&debug "on") [fix]`,
			// &tier is copied by *labels too, which is not walked: not fixed.
			`38:26 metadata.labels.tier: unquoted value 1 is read by kubectl (YAML 1.1) as number 1, not the string "1": quote it ("1") ` +
				`(not fixed automatically: quoting &tier changes every *tier too)`,
			`41:9 data.tier: alias *tier stands for 1, which ` + readAs +
				`number 1, not the string "1": write "1" instead of the alias, or quote the anchored value if every use of &tier wants a string`,
			`42:12 data.nothing: unquoted value (empty) is read by kubectl (YAML 1.1) as null, not the string "": quote it ("")`,
			`43:9 data.same: alias *nothing stands for an empty value, which ` + readAs +
				`null, not the string "": write "" instead of the alias`,
			`44:11 data.tagged: tagged value !!bool "yes" is read by kubectl (YAML 1.1) as boolean true, not the string "yes": remove the tag (write "yes")`,
			`45:10 data.again: alias *tagged stands for !!bool "yes", which ` + readAs +
				`boolean true, not the string "yes": write "yes" instead of the alias`,
			// In a List, anchors may be shared between items: not fixed.
			`56:13 data.port: unquoted value 8080 is read by kubectl (YAML 1.1) as number 8080, not the string "8080": quote it ("8080") ` +
				`(not fixed automatically: quoting &port changes every *port too)`,
			`57:14 data.again: alias *port stands for 8080, which ` + readAs +
				`number 8080, not the string "8080": write "8080" instead of the alias, or quote the anchored value if every use of &port wants a string`,
		}},
		{"tagged.yaml", []string{
			`9:12 metadata.labels.count: tagged value !!int "3" is read by kubectl (YAML 1.1) as number 3, not the string "3": remove the tag (write "3")`,
			`10:13 metadata.labels.active: tagged value !!bool "yes" is read by kubectl (YAML 1.1) as boolean true, not the string "yes": remove the tag (write "yes")`,
			`11:12 metadata.labels.plain: tagged value !!int 0755 is read by kubectl (YAML 1.1) as number 493, not the string "0755": remove the tag (write "0755")`,
			`12:12 metadata.labels.ratio: tagged value !!float "1.10" is read by kubectl (YAML 1.1) as number 1.1, not the string "1.10": remove the tag (write "1.10")`,
			`17:5 metadata.labels.on: tagged key !!bool "on" is read by kubectl (YAML 1.1) as boolean true, so the key becomes "true", not "on": remove the tag (write "on")`,
			`20:13 metadata.annotations.broken: tagged value !!int "abc" is not a string, and kubectl (YAML 1.1) cannot read the document ` +
				"(cannot decode !!str `abc` as a !!int): remove the tag (write \"abc\")",
			`21:12 metadata.annotations.empty: tagged value !!null "" is read by kubectl (YAML 1.1) as null, not the string "": remove the tag (write "")`,
			`34:18 spec.template.spec.containers[0].args[0]: tagged value !!bool "true" is read by kubectl (YAML 1.1) as boolean true, not the string "true": remove the tag (write "true")`,
			`34:46 spec.template.spec.containers[0].args[2]: tagged value !!null "" is read by kubectl (YAML 1.1) as null, not the string "": remove the tag (write "")`,
		}},
	}
	for _, tc := range tests {
		t.Run(tc.file, func(t *testing.T) {
			path := filepath.Join("testdata", "ambiguous-scalar", tc.file)
			src, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			got, findings := lintAmbiguous(t, path, src)
			if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
				t.Errorf("findings:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tc.want, "\n"))
			}

			if len(fixer.Fixable(findings)) == 0 {
				return // nothing to fix, no .fixed.yaml
			}
			eng := ambiguousEngine(t)
			outs := fixer.Files(eng, eng.RunSource(path, src), fixer.Options{DryRun: true})
			if len(outs) != 1 || outs[0].Err != nil {
				t.Fatalf("applying the fixes: %+v", outs)
			}
			fixed := outs[0].Out
			golden := strings.TrimSuffix(path, ".yaml") + ".fixed.yaml"
			if *update {
				if err := os.WriteFile(golden, fixed, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatal(err)
			}
			if string(fixed) != string(want) {
				t.Errorf("fixed bytes differ from %s:\n%s", golden, fixed)
			}
			after, _ := lintAmbiguous(t, golden, fixed)
			for _, s := range after {
				if strings.HasSuffix(s, " [fix]") {
					t.Errorf("still fixable after fixing: %s", s)
				}
			}
		})
	}
}

// ambiguousEngine runs ambiguous-scalar alone.
func ambiguousEngine(t *testing.T) *engine.Engine {
	eng, err := engine.New([]*analysis.Rule{rules.Get("ambiguous-scalar")}, nil, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	return eng
}
