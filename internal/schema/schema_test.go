package schema

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// describe spells a type out in full, so that a table row states one fact.
func describe(t Type) string {
	switch t.Kind() {
	case Struct:
		return "object " + t.Name()
	case List:
		return "array of " + describe(t.Elem())
	case Map:
		return "map of " + describe(t.Elem())
	}
	return t.Kind().String()
}

// walk follows a path such as "spec.containers[].ports[].containerPort";
// "*" steps into a map's values.
func walk(t Type, path string) (Type, bool) {
	for seg := range strings.SplitSeq(path, ".") {
		name, isList := strings.CutSuffix(seg, "[]")
		switch {
		case name == "*":
			if t.Kind() != Map {
				return Type{}, false
			}
			t = t.Elem()
		default:
			var ok bool
			if t, ok = t.Field(name); !ok {
				return Type{}, false
			}
		}
		if isList {
			if t.Kind() != List {
				return Type{}, false
			}
			t = t.Elem()
		}
	}
	return t, true
}

const (
	core = "object io.k8s.api.core.v1."
	meta = "object io.k8s.apimachinery.pkg.apis.meta.v1."
)

func TestFields(t *testing.T) {
	const pod = "spec.template.spec."
	tests := []struct {
		apiVersion, kind, path, want string
	}{
		{"apps/v1", "Deployment", "apiVersion", "string"},
		{"apps/v1", "Deployment", "kind", "string"},
		{"apps/v1", "Deployment", "metadata", meta + "ObjectMeta"},
		{"apps/v1", "Deployment", "metadata.creationTimestamp", "time"},
		{"apps/v1", "Deployment", "metadata.labels", "map of string"},
		{"apps/v1", "Deployment", "metadata.managedFields[].fieldsV1", "unknown"},
		{"apps/v1", "Deployment", "spec.replicas", "integer"},
		{"apps/v1", "Deployment", "spec.selector", meta + "LabelSelector"},
		{"apps/v1", "Deployment", "spec.selector.matchExpressions[].values", "array of string"},
		{"apps/v1", "Deployment", "spec.strategy.rollingUpdate.maxSurge", "int-or-string"},
		{"apps/v1", "Deployment", "spec.template", core + "PodTemplateSpec"},
		{"apps/v1", "Deployment", "spec.template.metadata.labels", "map of string"},
		{"apps/v1", "Deployment", pod + "containers", "array of " + core + "Container"},
		{"apps/v1", "Deployment", pod + "containers[].args", "array of string"},
		{"apps/v1", "Deployment", pod + "containers[].ports[].containerPort", "integer"},
		{"apps/v1", "Deployment", pod + "containers[].ports[].protocol", "string"},
		{"apps/v1", "Deployment", pod + "containers[].resources.limits", "map of quantity"},
		{"apps/v1", "Deployment", pod + "containers[].resources.requests.*", "quantity"},
		{"apps/v1", "Deployment", pod + "containers[].securityContext.readOnlyRootFilesystem", "boolean"},
		{"apps/v1", "Deployment", pod + "containers[].livenessProbe.httpGet.port", "int-or-string"},
		{"apps/v1", "Deployment", pod + "volumes[].configMap.defaultMode", "integer"},
		{"apps/v1", "Deployment", pod + "terminationGracePeriodSeconds", "integer"},
		{"apps/v1", "Deployment", "status.conditions[].lastUpdateTime", "time"},
		{"apps/v1", "StatefulSet", "spec.volumeClaimTemplates[].spec.resources.requests", "map of quantity"},
		{"apps/v1", "ControllerRevision", "data", "unknown"},
		{"v1", "Service", "spec.ports[].targetPort", "int-or-string"},
		{"v1", "Service", "spec.ports[].port", "integer"},
		{"v1", "Service", "spec.selector", "map of string"},
		{"v1", "ConfigMap", "data", "map of string"},
		{"v1", "ConfigMap", "binaryData", "map of bytes"},
		{"v1", "ConfigMap", "immutable", "boolean"},
		{"v1", "Secret", "stringData", "map of string"},
		{"v1", "Secret", "data", "map of bytes"},
		{"v1", "Secret", "metadata.creationTimestamp", "time"},
		{"v1", "Pod", "spec.overhead", "map of quantity"},
		{"v1", "Event", "eventTime", "time"}, // metav1.MicroTime
		{"batch/v1", "CronJob", "spec.schedule", "string"},
		{"batch/v1", "CronJob", "spec.jobTemplate.spec.backoffLimit", "integer"},
		{"batch/v1", "CronJob", "spec.jobTemplate.spec.template.spec.containers[].image", "string"},
		{"autoscaling/v2", "HorizontalPodAutoscaler", "spec.metrics", "array of object io.k8s.api.autoscaling.v2.MetricSpec"},
		{"autoscaling/v2", "HorizontalPodAutoscaler", "spec.metrics[].resource.target.averageUtilization", "integer"},
		{"autoscaling/v2", "HorizontalPodAutoscaler", "spec.metrics[].resource.target.averageValue", "quantity"},
		{"autoscaling/v2", "HorizontalPodAutoscaler", "spec.behavior.scaleUp.policies[].periodSeconds", "integer"},
		{"networking.k8s.io/v1", "Ingress", "spec.rules[].http.paths[].backend.service.port.number", "integer"},
	}
	for _, tt := range tests {
		root, ok := ForObject(tt.apiVersion, tt.kind)
		if !ok {
			t.Errorf("ForObject(%q, %q) = false", tt.apiVersion, tt.kind)
			continue
		}
		got, ok := walk(root, tt.path)
		if !ok {
			t.Errorf("%s %s: no field %s", tt.apiVersion, tt.kind, tt.path)
			continue
		}
		if d := describe(got); d != tt.want {
			t.Errorf("%s %s %s = %s, want %s", tt.apiVersion, tt.kind, tt.path, d, tt.want)
		}
	}
}

func TestUnknownFields(t *testing.T) {
	deploy, _ := ForObject("apps/v1", "Deployment")
	for _, path := range []string{
		"spec.replica",
		"Spec",                               // the API server's decoder is case-sensitive
		"spec.template.spec.containers.name", // a list, not an object
		"spec.replicas.x",                    // a scalar
		"metadata.labels.app.x",              // a map's value is a string
		"name",                               // ObjectMeta is a field, not embedded
	} {
		if got, ok := walk(deploy, path); ok {
			t.Errorf("Deployment %s = %s, want no such field", path, describe(got))
		}
	}
	if _, ok := (Type{}).Field("anything"); ok {
		t.Error("Unknown.Field = true, want false")
	}
}

func TestForObject(t *testing.T) {
	tests := []struct {
		apiVersion, kind string
		want             bool
	}{
		{"v1", "Pod", true},
		{"apps/v1", "Deployment", true},
		{"rbac.authorization.k8s.io/v1", "ClusterRole", true},
		{"v1", "List", false},
		{"v1", "PodList", false},
		{"apps/v1", "DeploymentList", false},
		{"v1", "Status", false},
		{"v1", "DeleteOptions", false},
		{"apps/v1", "WatchEvent", false},
		{"v1", "PodLogOptions", false}, // request options, not an object
		{"apps/v1", "deployment", false},
		{"Apps/v1", "Deployment", false},
		{"apps", "Deployment", false},
		{"", "", false},
		{"leaderworkerset.x-k8s.io/v1", "LeaderWorkerSet", false},
		// Not registered in client-go's scheme (apiextensions-apiserver has
		// its own), so CRDs are not described.
		{"apiextensions.k8s.io/v1", "CustomResourceDefinition", false},
	}
	for _, tt := range tests {
		if _, got := ForObject(tt.apiVersion, tt.kind); got != tt.want {
			t.Errorf("ForObject(%q, %q) = %v, want %v", tt.apiVersion, tt.kind, got, tt.want)
		}
	}
}

func TestNamed(t *testing.T) {
	tests := []struct{ name, want string }{
		{"PodTemplateSpec", "io.k8s.api.core.v1.PodTemplateSpec"},
		{"PodSpec", "io.k8s.api.core.v1.PodSpec"},
		{"Container", "io.k8s.api.core.v1.Container"},
		{"ObjectMeta", "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"},
		{"LabelSelector", "io.k8s.apimachinery.pkg.apis.meta.v1.LabelSelector"},
		{"io.k8s.api.apps.v1.DeploymentSpec", "io.k8s.api.apps.v1.DeploymentSpec"},
		{"Pod", ""},
		{"io.k8s.api.core.v1.NoSuchType", ""},
		{"", ""},
	}
	for _, tt := range tests {
		typ, ok := Named(tt.name)
		if ok != (tt.want != "") || typ.Name() != tt.want {
			t.Errorf("Named(%q) = %q, %v; want %q", tt.name, typ.Name(), ok, tt.want)
		}
	}

	// Handles compare equal however they were reached.
	deploy, _ := ForObject("apps/v1", "Deployment")
	viaDeploy, _ := walk(deploy, "spec.template")
	if named, _ := Named("PodTemplateSpec"); viaDeploy != named {
		t.Errorf("Deployment spec.template %v != Named(PodTemplateSpec) %v", viaDeploy, named)
	}
}

func TestType(t *testing.T) {
	var zero Type
	if zero.Kind() != Unknown || zero.Name() != "" || zero.IsScalar() || zero.Elem() != zero || len(zero.FieldNames()) != 0 {
		t.Errorf("zero Type is not Unknown")
	}
	c, _ := Named("Container")
	args, _ := c.Field("args")
	env, _ := c.Field("env")
	limits, _ := walk(c, "resources.limits")
	for _, typ := range []Type{zero, {uint16(String)}, {uint16(Bool)}, {uint16(Int)}, {uint16(Number)}, {uint16(IntOrString)}, {uint16(Quantity)}, {uint16(Bytes)}, {uint16(Time)}, c, args, env, limits} {
		k := typ.Kind()
		if got, want := typ.IsScalar(), k >= String && k <= Time; got != want {
			t.Errorf("%s.IsScalar() = %v, want %v", describe(typ), got, want)
		}
	}
	if describe(args) != "array of string" || describe(env) != "array of "+core+"EnvVar" || describe(limits) != "map of quantity" {
		t.Errorf("Container args, env, resources.limits = %s, %s, %s", describe(args), describe(env), describe(limits))
	}
	if args.Name() != "" || args.Elem().Elem() != zero || c.Elem() != zero {
		t.Errorf("only structs have names; only lists and maps have elements")
	}
	names := []string{"unknown", "string", "boolean", "integer", "number", "int-or-string", "quantity", "bytes", "time", "object", "array", "map"}
	for k, want := range names {
		if got := Kind(k).String(); got != want {
			t.Errorf("Kind(%d).String() = %q, want %q", k, got, want)
		}
	}
	if got := Kind(200).String(); got != "Kind(200)" {
		t.Errorf("Kind(200).String() = %q", got)
	}

	fn := c.FieldNames()
	if !slices.IsSorted(fn) || !slices.Contains(fn, "image") || !slices.Contains(fn, "resources") {
		t.Errorf("Container.FieldNames() = %v", fn)
	}
}

// TestTables checks the invariants the lookups rely on.
func TestTables(t *testing.T) {
	for i, ti := range types {
		switch {
		case i < firstNamed:
			if ti.kind != Kind(i) || ti.name != "" {
				t.Errorf("types[%d] = %+v, want primitive %v", i, ti, Kind(i))
			}
		case i < endNamed:
			if ti.kind != Struct || ti.name == "" || i > firstNamed && types[i-1].name >= ti.name {
				t.Errorf("types[%d] = %+v: named structs must be sorted and unique", i, ti)
			}
			fs := Type{uint16(i)}.fields()
			for j := range fs {
				if j > 0 && fs[j-1].name >= fs[j].name || int(fs[j].typ) >= len(types) {
					t.Errorf("%s: field %q out of order or type out of range", ti.name, fs[j].name)
				}
			}
		default:
			if ti.kind != List && ti.kind != Map || ti.name != "" || int(ti.elem) >= len(types) {
				t.Errorf("types[%d] = %+v, want list or map", i, ti)
			}
		}
	}
	for i, o := range objects {
		if i > 0 && !(objects[i-1].apiVersion < o.apiVersion || objects[i-1].apiVersion == o.apiVersion && objects[i-1].kind < o.kind) {
			t.Errorf("objects[%d] %s %s out of order", i, o.apiVersion, o.kind)
		}
		if types[o.typ].kind != Struct {
			t.Errorf("objects[%d] %s %s is not a struct", i, o.apiVersion, o.kind)
		}
	}
}

func TestFieldDoesNotAllocate(t *testing.T) {
	spec, _ := Named("PodSpec")
	name := strings.Repeat("containers", 1) // not a constant the compiler could fold
	if n := testing.AllocsPerRun(100, func() { spec.Field(name) }); n != 0 {
		t.Errorf("Field allocates %v times", n)
	}
	if n := testing.AllocsPerRun(100, func() { ForObject("apps/v1", "Deployment") }); n != 0 {
		t.Errorf("ForObject allocates %v times", n)
	}
}

// TestGenerated regenerates the tables and compares them with the
// checked-in ones.
func TestGenerated(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: not running the generator (it compiles k8s.io/client-go)")
	}
	gotool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command to run the generator: ", err)
	}
	out := filepath.Join(t.TempDir(), "zz_generated.go")
	cmd := exec.Command(gotool, "run", "./gen", "-o", out)
	if msg, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go run ./gen: %v\n%s", err, msg)
	}
	want, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile("zz_generated.go")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Error("zz_generated.go is stale: run go generate ./internal/schema")
	}
}

func BenchmarkField(b *testing.B) {
	spec, _ := Named("PodSpec")
	for b.Loop() {
		spec.Field("containers")
	}
}

func BenchmarkPath(b *testing.B) {
	deploy, _ := ForObject("apps/v1", "Deployment")
	for b.Loop() {
		walk(deploy, "spec.template.spec.containers[].resources.limits")
	}
}
