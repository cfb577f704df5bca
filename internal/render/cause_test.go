package render

import "testing"

// kustomize v5.8.2's messages, as the corpora and testdata/render produce
// them, and the cause each leads with.
func TestReasonOf(t *testing.T) {
	tests := []struct{ msg, want string }{
		{`accumulating resources: accumulation err='accumulating resources from 'guestbook-ui-svc.yaml': evalsymlink failure on '/r/app/guestbook-ui-svc.yaml' : lstat /r/app/guestbook-ui-svc.yaml: no such file or directory': must build at directory: not a valid directory: evalsymlink failure on '/r/app/guestbook-ui-svc.yaml' : lstat /r/app/guestbook-ui-svc.yaml: no such file or directory`,
			"no such file or directory"},
		{`accumulating resources: accumulation err='accumulating resources from '../tgi-2b.yaml': security; file '/r/tgi/tgi-2b.yaml' is not in or below '/r/tgi/nf4'': must build at directory: '/r/tgi/tgi-2b.yaml': file is not directory`,
			"outside the root's directory, which kustomize build and Argo CD refuse"},
		{`accumulating resources: accumulation err='accumulating resources from '../base': '/r/base' must resolve to a file': couldn't make target for path '/r/base': invalid Kustomization: json: cannot unmarshal number into Go struct field Image.images.newTag of type string`,
			"images.newTag is a number, kustomize wants a string"},
		{`add operation does not apply: doc is missing path: "/metadata/labels/tier": missing value`,
			"the patch's add operation needs /metadata/labels/tier, which the object lacks"},
		{`no resource matches strategic merge patch "Deployment.v1.apps/web.[noNs]": no matches for Id Deployment.v1.apps/web.[noNs]; failed to find unique target for patch Deployment.v1.apps/web.[noNs]`,
			"the patch matches no object (Deployment.v1.apps/web.[noNs])"},
		{"trouble configuring builtin PatchTransformer with config: `\npath: patch.yaml\n`: unable to parse SM or JSON patch from [path: \"patch.yaml\"]",
			"kustomize cannot parse it as a strategic-merge or JSON patch"},
		{`var '{SERVICE_NAMESPACE Service.v1.[noGrp] {metadata.namespace}}' cannot be mapped to a field in the set of known resources`,
			"var SERVICE_NAMESPACE matches no field of the objects"},
		{`accumulating resources: accumulation err='accumulating resources from '../b': '/r/b' must resolve to a file': recursed accumulation of path '/r/b': accumulating resources: accumulation err='accumulating resources from '../a': '/r/a' must resolve to a file': cycle detected: candidate root '/r/a' contains visited root '/r/a'`,
			"cycle detected: candidate root '/r/a' contains visited root '/r/a'"},
		{`json: unsupported value: +Inf`, "json: unsupported value: +Inf"},
		{`first: second: the innermost error of all, which no pattern knows`, "the innermost error of all, which no pattern knows"},
		{`first: second: short`, "first: second: short"},
	}
	for _, tt := range tests {
		if got := reasonOf(tt.msg); got != tt.want {
			t.Errorf("reasonOf(%q)\n got %q\nwant %q", tt.msg, got, tt.want)
		}
	}
}
