package helmrender

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"path"
	"strings"
	"text/template"

	"github.com/BurntSushi/toml"
	"github.com/Masterminds/sprig/v3"
	"github.com/gobwas/glob"
	sigsyaml "sigs.k8s.io/yaml"
	goyaml3 "sigs.k8s.io/yaml/goyaml.v3"

	"helm.sh/helm/v3/pkg/chart"
)

// The functions a chart's templates call: sprig's (minus env and expandenv,
// which Helm removes: a chart must not read the renderer's environment),
// Helm's YAML/JSON/TOML converters, and the late-bound include, tpl,
// required and fail. The converters swallow errors as Helm's do (a template
// gets "" or an "Error" key), since charts rely on that.

func funcMap(set *template.Template, includes map[string]int) template.FuncMap {
	f := sprig.TxtFuncMap()
	delete(f, "env")
	delete(f, "expandenv")
	extra := template.FuncMap{
		"toToml":        toTOML,
		"fromToml":      fromTOML,
		"toYaml":        toYAML,
		"toYamlPretty":  toYAMLPretty,
		"fromYaml":      fromYAML,
		"fromYamlArray": fromYAMLArray,
		"toJson":        toJSON,
		"fromJson":      fromJSON,
		"fromJsonArray": fromJSONArray,
		"include":       includeFunc(set, includes),
		"tpl":           tplFunc(set, includes),
		"required":      required,
		"fail":          fail,
		// No cluster: lookup finds nothing, as in `helm template`.
		"lookup": func(string, string, string, string) (map[string]interface{}, error) {
			return map[string]interface{}{}, nil
		},
		// No DNS: Helm answers "" unless --enable-dns, which is never set here.
		"getHostByName": func(string) string { return "" },
	}
	for name, fn := range extra {
		f[name] = fn
	}
	return f
}

// includeFunc runs a named template into a string, counting how deep each
// name is nested so that a template including itself stops at Helm's limit.
func includeFunc(set *template.Template, includes map[string]int) func(string, interface{}) (string, error) {
	return func(name string, data interface{}) (string, error) {
		if includes[name] > includeDepthLimit {
			return "", fmt.Errorf("rendering template has a nested reference name: %s: unable to execute template", name)
		}
		includes[name]++
		defer func() { includes[name]-- }()
		var buf strings.Builder
		err := set.ExecuteTemplate(&buf, name, data)
		return buf.String(), err
	}
}

// tplFunc renders a string as a template with the definitions in scope at the
// call (a clone, so that the string's own defines stay local), and its own
// include and tpl bound to that clone.
func tplFunc(parent *template.Template, includes map[string]int) func(string, interface{}) (string, error) {
	return func(text string, vals interface{}) (string, error) {
		t, err := parent.Clone()
		if err != nil {
			return "", fmt.Errorf("cannot clone template: %w", err)
		}
		// Clone loses the missingkey option (golang/go#43022).
		t.Option("missingkey=zero")
		t.Funcs(template.FuncMap{"include": includeFunc(t, includes), "tpl": tplFunc(t, includes)})
		// A New template: text that is only defines and blanks would
		// otherwise leave the parent's body as the one executed.
		t, err = t.New(parent.Name()).Parse(text)
		if err != nil {
			return "", fmt.Errorf("cannot parse template %q: %w", text, err)
		}
		var buf strings.Builder
		if err := t.Execute(&buf, vals); err != nil {
			return "", fmt.Errorf("error during tpl function execution for %q: %w", text, err)
		}
		return strings.ReplaceAll(buf.String(), "<no value>", ""), nil
	}
}

// required fails with the message when the value is nil or "".
func required(msg string, val interface{}) (interface{}, error) {
	if s, ok := val.(string); val == nil || ok && s == "" {
		return val, errors.New(failStart + msg + failEnd)
	}
	return val, nil
}

func fail(msg string) (string, error) {
	return "", errors.New(failStart + msg + failEnd)
}

func toYAML(v interface{}) string {
	data, err := sigsyaml.Marshal(v)
	if err != nil {
		return ""
	}
	return strings.TrimSuffix(string(data), "\n")
}

func toYAMLPretty(v interface{}) string {
	var data bytes.Buffer
	enc := goyaml3.NewEncoder(&data)
	enc.SetIndent(2)
	if err := enc.Encode(v); err != nil {
		return ""
	}
	return strings.TrimSuffix(data.String(), "\n")
}

func fromYAML(s string) map[string]interface{} {
	m := map[string]interface{}{}
	if err := sigsyaml.Unmarshal([]byte(s), &m); err != nil {
		m["Error"] = err.Error()
	}
	return m
}

func fromYAMLArray(s string) []interface{} {
	a := []interface{}{}
	if err := sigsyaml.Unmarshal([]byte(s), &a); err != nil {
		a = []interface{}{err.Error()}
	}
	return a
}

func toTOML(v interface{}) string {
	var b bytes.Buffer
	if err := toml.NewEncoder(&b).Encode(v); err != nil {
		return err.Error()
	}
	return b.String()
}

func fromTOML(s string) map[string]interface{} {
	m := map[string]interface{}{}
	if err := toml.Unmarshal([]byte(s), &m); err != nil {
		m["Error"] = err.Error()
	}
	return m
}

func toJSON(v interface{}) string {
	data, err := json.Marshal(v)
	if err != nil {
		return ""
	}
	return string(data)
}

func fromJSON(s string) map[string]interface{} {
	m := map[string]interface{}{}
	if err := json.Unmarshal([]byte(s), &m); err != nil {
		m["Error"] = err.Error()
	}
	return m
}

func fromJSONArray(s string) []interface{} {
	a := []interface{}{}
	if err := json.Unmarshal([]byte(s), &a); err != nil {
		a = []interface{}{err.Error()}
	}
	return a
}

// chartFiles is .Files: a chart's non-template files by their path in the
// chart.
type chartFiles map[string][]byte

func newFiles(from []*chart.File) chartFiles {
	files := chartFiles{}
	for _, f := range from {
		files[f.Name] = f.Data
	}
	return files
}

// GetBytes is the file's bytes, empty when there is no such file.
func (f chartFiles) GetBytes(name string) []byte {
	if v, ok := f[name]; ok {
		return v
	}
	return []byte{}
}

// Get is the file's text, "" when there is no such file.
func (f chartFiles) Get(name string) string { return string(f.GetBytes(name)) }

// Glob is the files whose path matches the pattern ('/' separates; "**"
// crosses it); a bad pattern matches everything, as in Helm.
func (f chartFiles) Glob(pattern string) chartFiles {
	g, err := glob.Compile(pattern, '/')
	if err != nil {
		g, _ = glob.Compile("**")
	}
	out := chartFiles{}
	for name, data := range f {
		if g.Match(name) {
			out[name] = data
		}
	}
	return out
}

// AsConfig is the files as a ConfigMap's data (base name: text), in YAML.
func (f chartFiles) AsConfig() string {
	if f == nil {
		return ""
	}
	m := map[string]string{}
	for k, v := range f {
		m[path.Base(k)] = string(v)
	}
	return toYAML(m)
}

// AsSecrets is the files as a Secret's data (base name: base64), in YAML.
func (f chartFiles) AsSecrets() string {
	if f == nil {
		return ""
	}
	m := map[string]string{}
	for k, v := range f {
		m[path.Base(k)] = base64.StdEncoding.EncodeToString(v)
	}
	return toYAML(m)
}

// Lines is the file's lines, without a final newline's empty line.
func (f chartFiles) Lines(name string) []string {
	if f == nil || len(f[name]) == 0 {
		return []string{}
	}
	s := strings.TrimSuffix(string(f[name]), "\n")
	return strings.Split(s, "\n")
}
