package report

import (
	"encoding/json"
	"io"

	"github.com/shipshape-dev/shipshape/internal/analysis"
)

// The json format's shape is public: key order follows the field order
// below, arrays are never null, and every key is always present.
type jsonReport struct {
	Findings []jsonFinding `json:"findings"`
	Summary  jsonSummary   `json:"summary"`
}

type jsonFinding struct {
	Rule     string       `json:"rule"`
	Severity string       `json:"severity"`
	Message  string       `json:"message"`
	File     string       `json:"file"`
	Line     int          `json:"line"`
	Column   int          `json:"column"`
	Resource jsonResource `json:"resource"`
	Field    string       `json:"field"`
	Fixable  bool         `json:"fixable"`
	// Roots names the kustomize roots whose rendered objects the finding
	// is about; absent for files judged as written.
	Roots []string `json:"roots,omitempty"`
	// Detail backs the message up (kustomize's error chain); absent when
	// the message says it all.
	Detail string `json:"detail,omitempty"`
}

type jsonResource struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Namespace  string `json:"namespace"`
	Name       string `json:"name"`
}

type jsonSummary struct {
	Files     int `json:"files"`
	Resources int `json:"resources"`
	Errors    int `json:"errors"`
	Warnings  int `json:"warnings"`
	Infos     int `json:"infos"`
	Fixable   int `json:"fixable"`
	// NotRendered counts the applications no rule judged, by kind
	// (helmRelease, remoteBase, …); left out when there are none.
	NotRendered map[string]int `json:"notRendered,omitempty"`
	// Shard is "k/n" under --shard k/n; left out for a whole run.
	Shard string `json:"shard,omitempty"`
}

func writeJSON(w io.Writer, findings []analysis.Finding, sum Summary) error {
	out := jsonReport{
		Findings: make([]jsonFinding, 0, len(findings)),
		Summary: jsonSummary{
			Files:     sum.Files,
			Resources: sum.Resources,
			Errors:    sum.Errors,
			Warnings:  sum.Warnings,
			Infos:     sum.Infos,
			Fixable:   sum.Fixable,
			Shard:     sum.Shard,
		},
	}
	for kind, n := range sum.NotRendered {
		if out.Summary.NotRendered == nil {
			out.Summary.NotRendered = map[string]int{}
		}
		out.Summary.NotRendered[kind.Key()] = n
	}
	for _, f := range findings {
		out.Findings = append(out.Findings, jsonFinding{
			Rule:     f.Rule,
			Severity: f.Severity.String(),
			Message:  f.Message,
			File:     f.File,
			Line:     f.Line,
			Column:   f.Column,
			Resource: jsonResource{
				APIVersion: f.Resource.APIVersion,
				Kind:       f.Resource.Kind,
				Namespace:  f.Resource.Namespace,
				Name:       f.Resource.Name,
			},
			Field:   f.Field,
			Fixable: f.Fixable(),
			Roots:   f.Roots,
			Detail:  f.Detail,
		})
	}
	return encodeJSON(w, out)
}

// encodeJSON writes v with 2-space indent and a final newline, without
// HTML escaping (messages quote YAML, where <, > and & are common).
func encodeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}
