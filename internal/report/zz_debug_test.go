package report

import (
	"encoding/json"
	"testing"
)

func TestZZDebug(t *testing.T) {
	valid := writeSARIFBytes(t, testFindings(), testRules(), Options{ToolVersion: "1.2.3"})
	for name, m := range map[string]func(map[string]any){
		"level":   func(l map[string]any) { result(l, 0)["level"] = "fatal" },
		"line0":   func(l map[string]any) { region(l, 0)["startLine"] = 0 },
		"infouri": func(l map[string]any) { driver(l)["informationUri"] = "shipshape" },
		"dup":     func(l map[string]any) { d := driver(l); rs := d["rules"].([]any); d["rules"] = append(rs, rs[0]) },
	} {
		var log map[string]any
		json.Unmarshal(valid, &log)
		m(log)
		data, _ := json.Marshal(log)
		t.Logf("%s: %v", name, validateSARIF(t, data))
	}
}
