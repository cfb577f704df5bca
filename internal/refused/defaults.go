package refused

import (
	"strings"

	"github.com/shipshape-dev/shipshape/internal/yaml11"
)

// The defaults the API server writes into the compared fields before it
// compares them (k8s.io/kubernetes pkg/apis/core/v1/defaults.go,
// pkg/apis/apps/v1/defaults.go, pkg/apis/batch/v1/defaults.go), so that a
// default written out in one version and left out in the other is no
// change. Only the defaults of fields that the checks compare are here;
// each is applied to both sides alike.

func str(s string) scalar { return scalar{Kind: yaml11.String, Text: s} }
func num(s string) scalar { return scalar{Kind: yaml11.Int, Text: s} }

func setDefaultValue(root any, def scalar, keys ...string) {
	if get(root, keys...) == nil {
		set(root, def, keys...)
	}
}

// defaultPodTemplate applies SetDefaults_PodSpec and SetDefaults_Container
// (and those of ports, probes and volume sources) to a pod template.
func defaultPodTemplate(tmpl any) {
	spec := get(tmpl, "spec")
	if spec == nil {
		return
	}
	setDefault(spec, "ClusterFirst", "dnsPolicy")
	setDefault(spec, "Always", "restartPolicy")
	setDefault(spec, "default-scheduler", "schedulerName")
	setDefaultValue(spec, num("30"), "terminationGracePeriodSeconds")
	// enableServiceLinks is not here: SetDefaults_Pod sets it on pods, not
	// on templates, so written out in a template it is a change (the API
	// server refuses it in a Job's: testdata/transition/job-enableservicelinks).
	for _, list := range []string{"containers", "initContainers"} {
		cs, _ := get(spec, list).([]any)
		for _, c := range cs {
			defaultContainer(c)
		}
	}
	vols, _ := get(spec, "volumes").([]any)
	for _, v := range vols {
		for _, src := range []string{"configMap", "secret"} {
			if m, ok := get(v, src).(map[string]any); ok {
				setDefaultValue(m, num("420"), "defaultMode")
			}
		}
	}
}

func defaultContainer(c any) {
	setDefault(c, "/dev/termination-log", "terminationMessagePath")
	setDefault(c, "File", "terminationMessagePolicy")
	setDefault(c, pullPolicyFor(text(c, "image")), "imagePullPolicy")
	ports, _ := get(c, "ports").([]any)
	for _, p := range ports {
		setDefault(p, "TCP", "protocol")
	}
	for _, probe := range []string{"livenessProbe", "readinessProbe", "startupProbe"} {
		p, ok := get(c, probe).(map[string]any)
		if !ok {
			continue
		}
		setDefaultValue(p, num("1"), "timeoutSeconds")
		setDefaultValue(p, num("10"), "periodSeconds")
		setDefaultValue(p, num("1"), "successThreshold")
		setDefaultValue(p, num("3"), "failureThreshold")
		if h, ok := get(p, "httpGet").(map[string]any); ok {
			setDefault(h, "HTTP", "scheme")
		}
	}
	// Requests default to the limits (SetDefaults_Container via
	// SetDefaults_ResourceList of the pod).
	limits, _ := get(c, "resources", "limits").(map[string]any)
	for name, v := range limits {
		if get(c, "resources", "requests", name) == nil {
			set(c, v, "resources", "requests", name)
		}
	}
}

// pullPolicyFor is SetDefaults_Container's imagePullPolicy: Always for
// the tag latest or no tag (and no digest), else IfNotPresent.
func pullPolicyFor(image string) string {
	if strings.Contains(image, "@") {
		return "IfNotPresent"
	}
	name := image[strings.LastIndex(image, "/")+1:]
	i := strings.LastIndex(name, ":")
	if i < 0 || name[i+1:] == "latest" {
		return "Always"
	}
	return "IfNotPresent"
}

// defaultClaim applies SetDefaults_PersistentVolumeClaimSpec (volumeMode
// Filesystem) to a claim template, and drops what the server does not
// compare: status, and apiVersion and kind (a template's type meta is not
// converted into the internal object the server compares).
func defaultClaim(claim any) {
	setDefault(claim, "Filesystem", "spec", "volumeMode")
	del(claim, "status")
	del(claim, "apiVersion")
	del(claim, "kind")
}
