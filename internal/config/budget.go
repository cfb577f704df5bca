package config

import (
	"fmt"
	"time"

	"k8s.io/apimachinery/pkg/api/resource"
)

// RenderBudget is spec.renderBudget: how long rendering one kustomize
// root may take (a Go duration, "60s", "2m") and how much memory it may be
// estimated to need (a Kubernetes quantity, "4Gi", "512Mi").
type RenderBudget struct {
	Time   string `yaml:"time"`
	Memory string `yaml:"memory"`
}

// Parsed returns the budget's time and memory; zero for what is not set.
func (b RenderBudget) Parsed() (time.Duration, int64, error) {
	var d time.Duration
	var m int64
	if b.Time != "" {
		var err error
		if d, err = ParseRenderTime(b.Time); err != nil {
			return 0, 0, fmt.Errorf("spec.renderBudget.time: %v", err)
		}
	}
	if b.Memory != "" {
		var err error
		if m, err = ParseRenderMemory(b.Memory); err != nil {
			return 0, 0, fmt.Errorf("spec.renderBudget.memory: %v", err)
		}
	}
	return d, m, nil
}

func (b RenderBudget) validate(source string) error {
	if _, _, err := b.Parsed(); err != nil {
		return &Error{source, err.Error()}
	}
	return nil
}

// ParseRenderTime reads a render time budget: a positive Go duration.
func ParseRenderTime(s string) (time.Duration, error) {
	d, err := time.ParseDuration(s)
	if err != nil || d <= 0 {
		return 0, fmt.Errorf("%q is not a positive duration (60s, 2m)", s)
	}
	return d, nil
}

// ParseRenderMemory reads a render memory budget: a positive Kubernetes
// quantity of bytes.
func ParseRenderMemory(s string) (int64, error) {
	q, err := resource.ParseQuantity(s)
	if err != nil || q.Sign() <= 0 {
		return 0, fmt.Errorf("%q is not a positive quantity of bytes (4Gi, 512Mi)", s)
	}
	return q.Value(), nil
}
