package render

import (
	"fmt"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
	"sigs.k8s.io/kustomize/api/types"
)

// TestFailedAtDecodeError places the error kustomize gives for a
// kustomization it cannot decode, made by kustomize's own decoder from
// each case's fields (after apiVersion, kind and resources: line 4 on).
func TestFailedAtDecodeError(t *testing.T) {
	for _, tc := range []struct {
		name, fields string
		msg          string // instead of kustomize's, for what it never says
		want         string // line:column
	}{
		{name: "top-level map: the value in the map", fields: "commonLabels:\n  a: \"x\"\n  b: yes\n", want: "6:6"},
		{name: "top-level string: its value", fields: "namePrefix: 1\n", want: "4:13"},
		{name: "top-level list of the wrong kind: its value", fields: "images: {a: b}\n", want: "4:9"},
		{name: "list item's string: the first wrong value",
			fields: "images:\n- name: a\n  newTag: \"1\"\n- name: nginx\n  newTag: 1.10\n", want: "8:11"},
		{name: "key spelt in another case, as json matches it",
			fields: "images:\n- name: nginx\n  NewTag: 1.10\n", want: "6:11"},
		{name: "map in a list item: the value in the map",
			fields: "labels:\n- pairs:\n    a: \"x\"\n    b: yes\n", want: "7:8"},
		{name: "map of the wrong kind in a list item", fields: "labels:\n- pairs: [a]\n", want: "5:10"},
		{name: "through an embedded struct (Selector.patches.target.ResId.name)",
			fields: "patches:\n- path: p.yaml\n  target:\n    kind: Deployment\n    name: yes\n", want: "8:11"},
		{name: "integer given a string", fields: "replicas:\n- name: web\n  count: 3\n- name: api\n  count: \"3\"\n", want: "8:10"},
		{name: "list of strings in an embedded struct: the item",
			fields: "configMapGenerator:\n- name: x\n  literals:\n  - A=b\n  - 1.10\n", want: "8:5"},
		{name: "two embedded structs (Target.vars.objref.Gvk.kind)",
			fields: "vars:\n- name: X\n  objref:\n    kind: yes\n    name: c\n", want: "7:11"},
		{name: "nothing of the kind named: the first item's field",
			fields: "images:\n- name: a\n- name: b\n  newTag: x\n",
			msg:    "invalid Kustomization: json: cannot unmarshal number into Go struct field Image.images.newTag of type string", want: "7:3"},
		{name: "no item has the field: the list's key",
			fields: "images:\n- name: a\n",
			msg:    "invalid Kustomization: json: cannot unmarshal number into Go struct field Image.images.newTag of type string", want: "4:1"},
		{name: "no such list: the top of the file",
			fields: "namePrefix: a-\n",
			msg:    "invalid Kustomization: json: cannot unmarshal number into Go struct field Image.images.newTag of type string", want: "1:1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources: [cm.yaml]\n" + tc.fields
			msg := tc.msg
			if msg == "" {
				err := new(types.Kustomization).Unmarshal([]byte(src))
				if err == nil {
					t.Fatalf("kustomize decodes:\n%s", src)
				}
				msg = err.Error()
			}
			var doc yaml.Node
			if err := yaml.Unmarshal([]byte(src), &doc); err != nil {
				t.Fatal(err)
			}
			p := new(Renderer).failedAt(&Kustomization{File: "kustomization.yaml", Doc: doc.Content[0]}, msg)
			if got := fmt.Sprintf("%d:%d", p.Line, p.Column); got != tc.want {
				lines := strings.Split(src, "\n")
				t.Errorf("%s: at %s, want %s, in\n%s", msg, got, tc.want, strings.Join(lines, "\n"))
			}
		})
	}
}

func TestUnmatchedPatch(t *testing.T) {
	for _, tc := range []struct{ msg, kind, name string }{
		{`no resource matches strategic merge patch "Deployment.v1.apps/velero.[noNs]": no matches`, "Deployment", "velero"},
		{`x: no resource matches strategic merge patch "ConfigMap.v1.[noGrp]/app.config.prod": y`, "ConfigMap", "app.config"},
		{`no matches for Id Service.v1.[noGrp]/agent.[noNs]; failed to find unique target for patch Service.v1.[noGrp]/agent.[noNs]`, "Service", "agent"},
		{`accumulating resources: something else`, "", ""},
	} {
		kind, name, ok := unmatchedPatch(tc.msg)
		if kind != tc.kind || name != tc.name || ok != (tc.kind != "") {
			t.Errorf("unmatchedPatch(%q) = %q, %q, %v", tc.msg, kind, name, ok)
		}
	}
}

func TestWithoutAddresses(t *testing.T) {
	msg := `merging from generator &{0x24a01c58ca90 <nil>}: id resid.ResId{Gvk:resid.Gvk{Group:"", Version:"v1"}} does not exist; port 0x1F`
	want := `merging from generator &{0x… <nil>}: id resid.ResId{Gvk:resid.Gvk{Group:"", Version:"v1"}} does not exist; port 0x1F`
	if got := withoutAddresses(msg); got != want {
		t.Errorf("withoutAddresses:\n got %s\nwant %s", got, want)
	}
}
