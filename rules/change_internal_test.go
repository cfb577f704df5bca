package rules

import (
	"testing"

	"github.com/shipshape-dev/shipshape/internal/analysis"
	"github.com/shipshape-dev/shipshape/internal/manifest"
	"github.com/shipshape-dev/shipshape/internal/refused"
)

func object(t *testing.T, src string) *manifest.Object {
	t.Helper()
	f := manifest.Parse("x.yaml", []byte(src), manifest.Context{})
	if len(f.Objects) != 1 {
		t.Fatalf("want one object in %q", src)
	}
	return f.Objects[0]
}

func TestFirstUpdate(t *testing.T) {
	const base = "apiVersion: apps/v1\nkind: StatefulSet\nmetadata:\n  name: x\nspec:\n  replicas: 1\n  claims: [a, b]\n  storage: 1Gi\n"
	for _, c := range []struct {
		head, path string // path "" when nothing counts as changed
	}{
		{"apiVersion: apps/v1\nkind: StatefulSet\nmetadata:\n  name: x\nspec:\n  replicas: 1\n  claims: [a, b]\n  storage: 1024Mi\n", ""},
		{"apiVersion: apps/v1\nkind: StatefulSet\nmetadata:\n  name: x\nspec:\n  replicas: 1\n  claims: [a, b]\n  storage: 1Gi\n  podManagementPolicy: OrderedReady\n", ""},
		{"apiVersion: apps/v1\nkind: StatefulSet\nmetadata:\n  name: x\nspec:\n  replicas: 2\n  claims: [a, b]\n  storage: 1Gi\n", "spec.replicas"},
		{"apiVersion: apps/v1\nkind: StatefulSet\nmetadata:\n  name: x\nspec:\n  replicas: 1\n  claims: [a, b, c]\n  storage: 1Gi\n", "spec.claims"},
		{"apiVersion: apps/v1\nkind: StatefulSet\nmetadata:\n  name: x\nspec:\n  replicas: 1\n  claims: [a, c]\n  storage: 1Gi\n", "spec.claims[1]"},
		{"apiVersion: apps/v1\nkind: StatefulSet\nmetadata:\n  name: x\nspec:\n  replicas: 1\n  claims: [a, b]\n  storage: 2Gi\n", "spec.storage"},
	} {
		_, p, ok := firstUpdate(object(t, base).Node, object(t, c.head).Node, nil)
		if got := p.String(); ok != (c.path != "") || ok && got != c.path {
			t.Errorf("head %q: changed %v at %q, want %q", c.head, ok, got, c.path)
		}
	}
}

func TestRecreatesOnRefusal(t *testing.T) {
	lws := object(t, "apiVersion: leaderworkerset.x-k8s.io/v1\nkind: LeaderWorkerSet\nmetadata:\n  name: x\n")
	dep := object(t, "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: x\n")
	denied := []refused.Refusal{{Reason: "cannot enable subGroupSize after the lws is already created"}}
	immutable := []refused.Refusal{{Reason: "field is immutable"}}
	for _, c := range []struct {
		mode recreateMode
		obj  *manifest.Object
		r    []refused.Refusal
		want bool
	}{
		{recreateAlways, lws, denied, true},
		{recreateOnInvalid, lws, immutable, false}, // the webhook answers 403
		{recreateOnInvalid, dep, immutable, true},
		{recreateOnImmutable, lws, denied, false},
		{recreateOnImmutable, lws, immutable, true},
		{recreateOnImmutable, dep, denied, true}, // the API server answers 422
		{recreateNever, dep, immutable, false},
		{recreateAlways, dep, nil, false},
	} {
		if got := recreatesOnRefusal(c.mode, c.obj, c.r); got != c.want {
			t.Errorf("mode %d, %s, %v: %v, want %v", c.mode, c.obj.Kind, c.r, got, c.want)
		}
	}
}

func TestRecreatePolicy(t *testing.T) {
	withAnn := func(ann string) *manifest.Object {
		return object(t, "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: x\n  annotations:\n    "+ann+"\n")
	}
	for _, c := range []struct {
		ap   analysis.Applier
		obj  *manifest.Object
		want recreateMode
	}{
		{analysis.Applier{Engine: analysis.EngineArgoCD}, withAnn("argocd.argoproj.io/sync-options: Force=true,Replace=true"), recreateAlways},
		{analysis.Applier{Engine: analysis.EngineArgoCD}, withAnn("argocd.argoproj.io/sync-options: Force=true"), recreateOnInvalid},
		{analysis.Applier{Engine: analysis.EngineFlux}, withAnn("kustomize.toolkit.fluxcd.io/force: Enabled"), recreateOnImmutable},
		{analysis.Applier{Engine: analysis.EngineKapp}, withAnn("kapp.k14s.io/update-strategy: fallback-on-replace"), recreateOnInvalid},
		{analysis.Applier{Engine: analysis.EngineKapp, Recreate: true}, withAnn("a: b"), recreateAlways},
		{analysis.Applier{Engine: analysis.EngineFlux, Recreate: true}, withAnn("a: b"), recreateOnImmutable},
		{analysis.Applier{Engine: analysis.EngineArgoCD}, withAnn("a: b"), recreateNever},
	} {
		if _, got := recreatePolicy(c.ap, c.obj); got != c.want {
			t.Errorf("%v %v: mode %d, want %d", c.ap, manifest.Path(c.obj.Node, "metadata", "annotations").Content[0].Value, got, c.want)
		}
	}
}
