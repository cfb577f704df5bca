package refused

import (
	"encoding/base64"

	"github.com/shipshape-dev/shipshape/internal/manifest"
	"github.com/shipshape-dev/shipshape/internal/yaml11"
)

const (
	mirrorsService   = "k8s.io/kubernetes pkg/apis/core/validation.ValidateServiceUpdate (validateUpgradeDowngradeClusterIPs), with pkg/registry/core/service/storage patchAllocatedValues"
	mirrorsPVC       = "k8s.io/kubernetes pkg/apis/core/validation.ValidatePersistentVolumeClaimUpdate"
	mirrorsConfigMap = "k8s.io/kubernetes pkg/apis/core/validation.ValidateConfigMapUpdate"
	mirrorsSecret    = "k8s.io/kubernetes pkg/apis/core/validation.ValidateSecretUpdate"
)

// primaryClusterIP is the clusterIP a Service version asks for: "" when it
// asks for none (the server allocates one, or keeps the allocated one on
// update: patchAllocatedValues), "None" for a headless Service.
func primaryClusterIP(svc any) string {
	if ip := text(svc, "spec", "clusterIP"); ip != "" {
		return ip
	}
	ips, _ := get(svc, "spec", "clusterIPs").([]any)
	if len(ips) > 0 {
		s, _ := ips[0].(scalar)
		return s.Text
	}
	return ""
}

// service mirrors validateUpgradeDowngradeClusterIPs of
// ValidateServiceUpdate: the primary clusterIP may not change once set,
// headless ("None") to not headless or back included; ExternalName
// Services have none. A head that leaves clusterIP out keeps the live one
// (patchAllocatedValues copies it), so only a head that names one can be
// refused: a different address, "None" where the base was allocated one,
// or an address where the base was headless. An address named where the
// base let the server allocate is refused unless the server happened to
// allocate that very address.
func service(base, head any) []Refusal {
	if text(base, "spec", "type") == "ExternalName" || text(head, "spec", "type") == "ExternalName" {
		return nil
	}
	b, h := primaryClusterIP(base), primaryClusterIP(head)
	if h == "" || b == h {
		return nil
	}
	path := manifest.Keys("spec", "clusterIP")
	if get(head, "spec", "clusterIP") == nil {
		path = manifest.Keys("spec", "clusterIPs").Index(0)
	}
	return []Refusal{{Path: path, Reason: "may not change once set", Mirrors: mirrorsService, Stage: AtApply}}
}

// persistentVolumeClaim mirrors ValidatePersistentVolumeClaimUpdate: the
// spec (volumeMode defaulted to Filesystem) may not change, except
// resources.requests.storage growing (a bound claim whose StorageClass
// allows expansion), volumeAttributesClassName (a bound claim),
// volumeName set once, and storageClassName set where the base left it
// out (the default class admission, or a retroactive default, may have
// set it: it cannot be known offline). A storage request that shrinks is
// refused.
func persistentVolumeClaim(base, head any) []Refusal {
	b, h := clone(get(base, "spec")), clone(get(head, "spec"))
	var out []Refusal
	bs, bok := quantity(get(b, "resources", "requests", "storage"))
	hs, hok := quantity(get(h, "resources", "requests", "storage"))
	if bok && hok && hs.Cmp(bs) < 0 {
		out = append(out, Refusal{Path: manifest.Keys("spec", "resources", "requests", "storage"), Reason: "field can not be less than previous value", Mirrors: mirrorsPVC, Stage: AtApply})
	}
	del(b, "resources", "requests", "storage")
	del(h, "resources", "requests", "storage")
	del(b, "volumeAttributesClassName")
	del(h, "volumeAttributesClassName")
	for _, k := range []string{"volumeName", "storageClassName"} {
		if empty(get(b, k)) {
			del(h, k)
		}
	}
	for _, spec := range []any{b, h} {
		setDefault(spec, "Filesystem", "volumeMode")
	}
	paths := diff(manifest.Keys("spec"), b, h)
	return append(out, refusals(paths, "spec is immutable after creation except resources.requests and volumeAttributesClassName for bound claims", mirrorsPVC, AtApply)...)
}

// immutableData is the rule ConfigMap and Secret share: once the base is
// immutable: true, immutable must stay true and the data fields may not
// change.
func immutableData(base, head any, fields []string, mirrors string) []Refusal {
	if text(base, "immutable") != "true" {
		return nil
	}
	var out []Refusal
	if text(head, "immutable") != "true" {
		out = append(out, Refusal{Path: manifest.Keys("immutable"), Reason: "field is immutable when `immutable` is set", Mirrors: mirrors, Stage: AtApply})
	}
	for _, f := range fields {
		out = append(out, refusals(diff(manifest.Keys(f), get(base, f), get(head, f)), "field is immutable when `immutable` is set", mirrors, AtApply)...)
	}
	return out
}

// configMap mirrors ValidateConfigMapUpdate.
func configMap(base, head any) []Refusal {
	return immutableData(base, head, []string{"data", "binaryData"}, mirrorsConfigMap)
}

// secret mirrors ValidateSecretUpdate: type (default Opaque) never
// changes; an immutable Secret's data does not either, stringData folded
// into data first, as the server does before validating.
func secret(base, head any) []Refusal {
	var out []Refusal
	bt, ht := text(base, "type"), text(head, "type")
	if bt == "" {
		bt = "Opaque"
	}
	if ht == "" {
		ht = "Opaque"
	}
	if bt != ht {
		out = append(out, Refusal{Path: manifest.Keys("type"), Reason: "field is immutable", Mirrors: mirrorsSecret, Stage: AtApply})
	}
	return append(out, immutableData(secretData(base), secretData(head), []string{"data"}, mirrorsSecret)...)
}

// secretData is the Secret with stringData folded into data (base64), as
// the server stores it.
func secretData(s any) any {
	s = clone(s)
	sd, _ := get(s, "stringData").(map[string]any)
	for k, v := range sd {
		t, _ := v.(scalar)
		set(s, scalar{Kind: yaml11.String, Text: base64.StdEncoding.EncodeToString([]byte(t.Text))}, "data", k)
	}
	del(s, "stringData")
	return s
}
