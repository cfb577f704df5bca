package manifest

import (
	"testing"
)

// TestBOMAfterSeparator: a UTF-8 BOM that opens a document after `---` is
// skipped, as kustomize and kubectl skip it (they decode each document
// alone); the document keeps its apiVersion, and positions still count
// the BOM as the column it takes.
func TestBOMAfterSeparator(t *testing.T) {
	const bom = "\xef\xbb\xbf"
	src := "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n" +
		"---\n" + bom + "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: b}\n" +
		"--- # a comment\n" + bom + "# head\nkind: ConfigMap\napiVersion: v1\nmetadata: {name: c}\n" +
		"---\n" + bom + "data: {k: v}\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: d}\n"
	f := Parse("cms.yaml", []byte(src), Context{})
	if len(f.Errors) > 0 || len(f.Strays) > 0 {
		t.Fatalf("errors %v, strays %+v", f.Errors, f.Strays)
	}
	if f.Docs != 4 || len(f.Objects) != 4 {
		t.Fatalf("%d documents, %d objects, want 4 and 4", f.Docs, len(f.Objects))
	}
	for i, want := range []struct {
		name      string
		line, col int // of the object's first key
	}{{"a", 1, 1}, {"b", 5, 2}, {"c", 10, 1}, {"d", 14, 2}} {
		o := f.Objects[i]
		if o.Resource.APIVersion != "v1" || o.Resource.Name != want.name || o.Doc != i {
			t.Errorf("object %d: %+v (document %d)", i, o.Resource, o.Doc)
		}
		if k := o.Node.Content[0]; k.Line != want.line || k.Column != want.col {
			t.Errorf("object %s: first key %q at %d:%d, want %d:%d", want.name, k.Value, k.Line, k.Column, want.line, want.col)
		}
	}
	if v := f.Objects[3].Node.Content[1].Content[1]; v.Line != 14 || v.Column != 12 { // the BOM is column 1
		t.Errorf("data.k's value at %d:%d, want 14:12", v.Line, v.Column)
	}
	roots, err := DocumentRoots([]byte(src))
	if err != nil || len(roots) != 4 || roots[1].Content[0].Value != "apiVersion" || roots[1].Line != 5 {
		t.Errorf("DocumentRoots: %d roots, %v", len(roots), err)
	}
}

// TestBOMAfterSeparatorSyntaxError: a broken document after a BOM is
// reported on its own line, and the documents around it are still read.
func TestBOMAfterSeparatorSyntaxError(t *testing.T) {
	src := "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n" +
		"---\n\xef\xbb\xbfapiVersion: v1\nkind: [\n" +
		"---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n"
	f := Parse("cms.yaml", []byte(src), Context{})
	if len(f.Errors) != 1 || f.Errors[0].Line < 5 || f.Errors[0].Line > 7 {
		t.Errorf("errors %v, want one at lines 5-7", f.Errors)
	}
	if len(f.Objects) != 2 {
		t.Errorf("%d objects, want 2", len(f.Objects))
	}
}

// A BOM anywhere else than at the start of a document is content, for
// kustomize as for shipshape.
func TestBOMInsideDocument(t *testing.T) {
	src := "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\ndata:\n  k: \xef\xbb\xbfv\n"
	f := Parse("cm.yaml", []byte(src), Context{})
	if len(f.Objects) != 1 {
		t.Fatalf("%d objects", len(f.Objects))
	}
	if v := f.Objects[0].Node.Content[7].Content[1].Value; v != "\ufeffv" {
		t.Errorf("data.k = %q, want the BOM kept", v)
	}
}
