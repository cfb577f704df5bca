package render

import (
	"testing"

	"go.yaml.in/yaml/v3"
)

// TestStructuralMarker: which markers an inline patch writes make its root
// a chart's source (a namespace, a name, labels, a selector, replicas, an
// image) and which are data.
func TestStructuralMarker(t *testing.T) {
	for _, tc := range []struct {
		patch string
		want  string // the marker found, "" for none
	}{
		{"- {op: replace, path: /metadata/namespace, value: '{{ .Release.Namespace }}'}", "{{ .Release.Namespace }}"},
		{"- {op: replace, path: /spec/replicas, value: '{{ .Values.n }}'}", "{{ .Values.n }}"},
		{"- {op: add, path: /metadata/labels/app.kubernetes.io~1name, value: '{{ .Chart.Name }}'}", "{{ .Chart.Name }}"},
		{"- {op: replace, path: /spec/template/spec/containers/0/image, value: 'x:{{ .Values.tag }}'}", "x:{{ .Values.tag }}"},
		{"- {op: add, path: /spec/selector, value: {matchLabels: {app: '{{ .Chart.Name }}'}}}", "{{ .Chart.Name }}"},
		{"- {op: replace, path: /data/message, value: '{{ $labels.instance }} is down'}", ""},
		{"- {op: replace, path: /data/labels, value: '{{ $labels.job }}'}", ""},
		{"- {op: replace, path: /spec/template/metadata/annotations/x, value: '{{ .Values.x }}'}", ""},
		{"apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\ndata: {labels: '{{ $labels.job }}'}", ""},
		{"apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: x, namespace: '{{ .Release.Namespace }}'}", "{{ .Release.Namespace }}"},
		{"apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: x}\nspec: {template: {metadata: {labels: {v: '{{ .Values.v }}'}}}}", "{{ .Values.v }}"},
	} {
		var doc yaml.Node
		if err := yaml.Unmarshal([]byte(tc.patch), &doc); err != nil {
			t.Fatal(err)
		}
		got := ""
		if n := structuralMarker(doc.Content[0]); n != nil {
			got = n.Value
		}
		if got != tc.want {
			t.Errorf("%s: found %q, want %q", tc.patch, got, tc.want)
		}
	}
}
