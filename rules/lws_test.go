package rules_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/shipshape-dev/shipshape/internal/analysis"
	"github.com/shipshape-dev/shipshape/internal/config"
	"github.com/shipshape-dev/shipshape/internal/engine"
	"github.com/shipshape-dev/shipshape/internal/manifest"
	"github.com/shipshape-dev/shipshape/rules"
)

var lwsRules = []string{"lws-invalid-name", "lws-service-shadow", "lws-unsafe-recreate", "lws-recreate-order", "lws-ordering"}

// lintLWS lints src (one file, several documents) with lws.engine and
// lws.version set, and returns the LWS rules' findings as
// "rule line:col message" lines, fixable ones ending in " [fix]".
func lintLWS(t *testing.T, lwsEngine, version, src string) []string {
	t.Helper()
	eng, err := engine.New(rules.All(), &config.Config{LWS: config.LWSConfig{Engine: lwsEngine, Version: version}}, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	f := manifest.Parse("in.yaml", []byte(src), manifest.Context{})
	if len(f.Errors) > 0 {
		t.Fatalf("fixture does not parse: %v", f.Errors)
	}
	fs := eng.LintObjects(f.Objects)
	analysis.Sort(fs)
	var out []string
	for _, fd := range fs {
		if !strings.HasPrefix(fd.Rule, "lws-") {
			continue
		}
		s := fmt.Sprintf("%s %d:%d %s", fd.Rule, fd.Line, fd.Column, fd.Message)
		if fd.Fix != nil {
			s += " [fix]"
		}
		out = append(out, s)
	}
	return out
}

// TestLWSRuleExamples lints every LWS rule's Bad and Good example: the Bad
// one must fire the rule, the Good one must not.
func TestLWSRuleExamples(t *testing.T) {
	for _, id := range lwsRules {
		r := rules.Get(id)
		if r == nil {
			t.Fatalf("rule %s not registered", id)
		}
		fires := func(src string) bool {
			for _, f := range lintLWS(t, "", "", src) {
				if strings.HasPrefix(f, id+" ") {
					return true
				}
			}
			return false
		}
		if !fires(r.Bad) {
			t.Errorf("%s: the Bad example does not fire", id)
		}
		if fires(r.Good) {
			t.Errorf("%s: the Good example fires: %v", id, lintLWS(t, "", "", r.Good))
		}
		if !strings.Contains(analysis.Markdown(r), "| ") && (id == "lws-recreate-order" || id == "lws-unsafe-recreate") {
			t.Errorf("%s: the documentation lacks the engine table", id)
		}
	}
}

const lwsHead = `apiVersion: leaderworkerset.x-k8s.io/v1
kind: LeaderWorkerSet
metadata:
`

// lwsDoc is an LWS named name with the metadata lines meta and the worker
// template lines tmpl (indented for the template's spec).
func lwsDoc(name, meta, tmpl string) string {
	return lwsHead + "  name: " + name + "\n" + meta + `spec:
  leaderWorkerTemplate:
    size: 2
    workerTemplate:
      spec:
        containers:
          - name: c
            image: example/c:1
` + tmpl
}

const usesConfig = `            envFrom:
              - configMapRef:
                  name: cfg
`

func TestLWSRules(t *testing.T) {
	cm := func(ns, ann string) string {
		s := "---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cfg\n"
		if ns != "" {
			s += "  namespace: " + ns + "\n"
		}
		return s + ann
	}
	tests := []struct {
		name            string
		engine, version string
		src             string
		want            []string // substrings, one per finding, in order
	}{
		{"valid name", "", "", lwsDoc("vllm", "", ""), nil},
		{"dotted name", "", "", lwsDoc("llama-3.1", "", ""), []string{`lws-invalid-name 4:9 LeaderWorkerSet name "llama-3.1" is not a DNS-1035 label ('.' is not allowed`}},
		{"name starting with a digit", "", "", lwsDoc("70b", "", ""), []string{"it must start with a lowercase letter"}},
		{"placeholder name", "", "", lwsDoc("${NAME}", "", ""), nil},
		{"dotted name on another kind", "", "", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a.b\n", nil},

		{"Service named like the LWS", "none", "", lwsDoc("vllm", "", "") + "---\napiVersion: v1\nkind: Service\nmetadata:\n  name: vllm\nspec:\n  ports: [{port: 80}]\n  selector: {app: x}\n",
			[]string{`lws-service-shadow 17:9 Service "vllm" has the name of the headless Service the LWS controller creates for LeaderWorkerSet "vllm" (subdomainPolicy Shared)`}},
		{"Service <lws>-<n> with UniquePerReplica", "none", "", lwsDoc("vllm", "", "") + "  networkConfig:\n    subdomainPolicy: UniquePerReplica\n---\napiVersion: v1\nkind: Service\nmetadata:\n  name: vllm-1\nspec:\n  ports: [{port: 80}]\n  selector: {app: x}\n---\napiVersion: v1\nkind: Service\nmetadata:\n  name: vllm\nspec:\n  ports: [{port: 80}]\n  selector: {app: x}\n",
			[]string{`lws-service-shadow 19:9 Service "vllm-1" has the name of the headless Service the LWS controller creates for replica 1 of LeaderWorkerSet "vllm" (subdomainPolicy UniquePerReplica)`}},
		{"<lws>-<n> with Shared, <lws>-leader, other namespace", "none", "", lwsDoc("vllm", "", "") +
			"---\napiVersion: v1\nkind: Service\nmetadata:\n  name: vllm-0\nspec:\n  ports: [{port: 80}]\n  selector: {app: x}\n" +
			"---\napiVersion: v1\nkind: Service\nmetadata:\n  name: vllm-leader\nspec:\n  ports: [{port: 80}]\n  selector: {app: x}\n" +
			"---\napiVersion: v1\nkind: Service\nmetadata:\n  name: vllm\n  namespace: other\nspec:\n  ports: [{port: 80}]\n  selector: {app: x}\n",
			nil},

		{"Force and Replace, no version", "none", "", lwsDoc("vllm", "  annotations:\n    argocd.argoproj.io/sync-options: Force=true,Replace=true\n", ""),
			[]string{`lws-unsafe-recreate 6:38 sync-options Force=true,Replace=true make Argo CD delete LeaderWorkerSet "vllm" in the background`, "set lws.version", "kubectl replace --force --cascade=foreground"}},
		{"Force and Replace below v0.8.0", "none", "v0.7.1", lwsDoc("vllm", "  annotations:\n    argocd.argoproj.io/sync-options: Replace=true, Force=true\n", ""),
			[]string{"LWS v0.7.1 builds the new LWS's ControllerRevision from the terminating leader StatefulSet (kubernetes-sigs/lws#732, fixed in v0.8.0)", "kubectl replace --force --cascade=foreground"}},
		{"Force and Replace from v0.8.0", "none", "0.8.1", lwsDoc("vllm", "  annotations:\n    argocd.argoproj.io/sync-options: Force=true,Replace=true\n", ""),
			[]string{"LWS 0.8.1 waits while the old leader StatefulSet terminates (kubernetes-sigs/lws#732), but background deletion still leaves a window"}},
		{"before foreground deletion worked", "none", "v0.6.2", lwsDoc("vllm", "  annotations:\n    kustomize.toolkit.fluxcd.io/force: enabled\n", ""),
			[]string{`lws-unsafe-recreate 6:40 kustomize.toolkit.fluxcd.io/force: enabled makes Flux delete LeaderWorkerSet "vllm"`, "LWS v0.6.2 does not support foreground deletion (v0.7.0 does)"}},
		{"kapp always-replace", "none", "", lwsDoc("vllm", "  annotations:\n    kapp.k14s.io/update-strategy: always-replace\n", ""),
			[]string{"kapp.k14s.io/update-strategy: always-replace makes kapp delete"}},
		{"Force alone never recreates", "none", "", lwsDoc("vllm", "  annotations:\n    argocd.argoproj.io/sync-options: Force=true\n", ""),
			[]string{"sync-options Force=true without Replace=true never recreates LeaderWorkerSet \"vllm\"", "403"}},
		{"kapp fallback-on-replace never recreates", "none", "", lwsDoc("vllm", "  annotations:\n    kapp.k14s.io/update-strategy: fallback-on-replace\n", ""),
			[]string{"fallback-on-replace never recreates LeaderWorkerSet \"vllm\"", "422"}},
		{"Replace alone does not delete", "none", "", lwsDoc("vllm", "  annotations:\n    argocd.argoproj.io/sync-options: Replace=true\n", ""), nil},
		{"suppressed", "none", "", lwsDoc("vllm", "  annotations:\n    argocd.argoproj.io/sync-options: Force=true,Replace=true\n    shipshape.dev/ignore: lws-unsafe-recreate\n", ""), nil},

		{"dependency in the input", "argocd", "", lwsDoc("vllm", "", usesConfig) + cm("", ""),
			[]string{`lws-recreate-order 4:9 LeaderWorkerSet "vllm" uses ConfigMap "cfg" (wave 0) but syncs in wave 0`}},
		{"dependency in another namespace is not the one used", "argocd", "", lwsDoc("vllm", "", usesConfig) + cm("other", ""),
			[]string{`lws-ordering 4:9 LeaderWorkerSet "vllm" uses ConfigMap "cfg", not in the input: Argo CD orders only what it sees`}},
		{"owned LWS skipped", "argocd", "", lwsDoc("vllm", "  ownerReferences:\n    - apiVersion: disaggregatedset.x-k8s.io/v1\n      kind: DisaggregatedSet\n      name: ds\n      uid: 1\n", usesConfig) + cm("", ""), nil},
		{"suppressed LWS skipped", "kapp", "", lwsDoc("vllm", "  annotations:\n    shipshape.dev/ignore: lws-recreate-order\n", usesConfig) + cm("", ""), nil},
		{"suppressed dependency not annotated", "kapp", "", lwsDoc("vllm", "", usesConfig) + cm("", "  annotations:\n    shipshape.dev/ignore: all\n"),
			[]string{`lws-recreate-order 4:9 LeaderWorkerSet "vllm" uses ConfigMap "cfg", which kapp does not order before it`}},
		{"explicit wave too low: no fix", "argocd", "", lwsDoc("vllm", "  annotations:\n    argocd.argoproj.io/sync-wave: \"1\"\n", usesConfig) + cm("", "  annotations:\n    argocd.argoproj.io/sync-wave: \"4\"\n"),
			[]string{`raise argocd.argoproj.io/sync-wave from "1" to "5" by hand`}},
		{"auto with two engines", "auto", "", lwsDoc("vllm", "  annotations:\n    kapp.k14s.io/change-group: a/b\n", usesConfig) + cm("", "  annotations:\n    argocd.argoproj.io/sync-wave: \"1\"\n"),
			[]string{`lws-ordering 4:9 annotations of several engines are in the input, Argo CD (argocd.argoproj.io/sync-wave at in.yaml:24), kapp (kapp.k14s.io/change-group at in.yaml:6), so lws.engine auto adds no ordering`}},
		{"auto without engine, nothing to order: silent", "auto", "", lwsDoc("vllm", "", usesConfig), nil},
		{"Flux: a note for an LWS with dependencies", "flux", "", lwsDoc("vllm", "", usesConfig),
			[]string{`lws-ordering 4:9 Flux has no per-object ordering: to apply LeaderWorkerSet "vllm" after what it uses (ConfigMap "cfg")`}},
		{"HPA of another LWS and ExternalName Service are not followers", "argocd", "", lwsDoc("vllm", "  annotations:\n    argocd.argoproj.io/sync-wave: \"2\"\n", "") +
			"---\napiVersion: autoscaling/v2\nkind: HorizontalPodAutoscaler\nmetadata:\n  name: h\nspec:\n  scaleTargetRef: {apiVersion: leaderworkerset.x-k8s.io/v1, kind: LeaderWorkerSet, name: other}\n" +
			"---\napiVersion: v1\nkind: Service\nmetadata:\n  name: ext\nspec:\n  type: ExternalName\n  externalName: example.com\n  selector: {leaderworkerset.sigs.k8s.io/name: vllm}\n" +
			"---\napiVersion: autoscaling/v1\nkind: HorizontalPodAutoscaler\nmetadata:\n  name: mine\nspec:\n  scaleTargetRef: {kind: LeaderWorkerSet, name: vllm}\n",
			[]string{`lws-recreate-order 35:9 HorizontalPodAutoscaler "mine" scales LeaderWorkerSet "vllm" (wave 2) but syncs in wave 0, before it; add argocd.argoproj.io/sync-wave: "2" [fix]`}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := lintLWS(t, tc.engine, tc.version, tc.src)
			if len(tc.want) == 0 {
				if len(got) > 0 {
					t.Errorf("want no finding, got:\n%s", strings.Join(got, "\n"))
				}
				return
			}
			// One finding, holding every substring wanted.
			if len(got) != 1 {
				t.Fatalf("want one finding, got %d:\n%s", len(got), strings.Join(got, "\n"))
			}
			for _, w := range tc.want {
				if !strings.Contains(got[0], w) {
					t.Errorf("finding lacks %q:\n%s", w, got[0])
				}
			}
		})
	}
}
