package selector

import (
	"errors"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	sjson "sigs.k8s.io/json"
	sigsyaml "sigs.k8s.io/yaml"
)

// decode runs the path a manifest takes to the API server: kubectl's
// YAMLToJSON (go-yaml v2, YAML 1.1), then the server's case-sensitive JSON
// decoder with strict field validation (kubectl's default --validate=strict),
// into a field of type T. doc holds the selector value alone.
func decode[T any](doc []byte) (T, error) {
	var w struct {
		Selector T `json:"selector"`
	}
	js, err := sigsyaml.YAMLToJSON(doc)
	if err != nil {
		return w.Selector, err
	}
	js = append(append([]byte(`{"selector":`), js...), '}')
	strict, err := sjson.UnmarshalStrict(js, &w)
	if err == nil && len(strict) > 0 {
		err = errors.Join(strict...)
	}
	return w.Selector, err
}

// apiLabelSelector is what a workload's spec.selector becomes on the server.
func apiLabelSelector(doc []byte) (labels.Selector, error) {
	ls, err := decode[*metav1.LabelSelector](doc)
	if err != nil {
		return nil, err
	}
	return metav1.LabelSelectorAsSelector(ls)
}

// apiMapSelector is what a Service's spec.selector becomes; nil for null.
func apiMapSelector(doc []byte) (labels.Selector, error) {
	m, err := decode[map[string]string](doc)
	if err != nil || m == nil {
		return nil, err
	}
	return labels.ValidatedSelectorFromSet(m)
}
