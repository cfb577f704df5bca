package integration

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
)

// fnItems is the size of the ResourceList TestFnMemory lints: issue 31's
// reproduction (100,000 items took 3.6 GB, 430 times the input).
const fnItems = 100_000

// maxFnRSSPerInputByte is the bound on fn's peak resident memory, in
// times the ResourceList's bytes (issue 31: "100,000 items within ~20 ×
// input size"). Measured at about 16 (and 62 before the items were
// linted batch by batch).
const maxFnRSSPerInputByte = 20

// TestFnMemory: `shipshape fn` on a 100,000-item ResourceList (about
// 40 MB) peaks at no more than maxFnRSSPerInputByte times its input, as
// the kernel counts it (the child's rusage), and still reports every
// finding, per object and cross-resource. A memory assertion: how long it
// takes is not judged.
func TestFnMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: fn on 100,000 items takes a minute of CPU")
	}
	if runtime.GOOS != "linux" {
		t.Skipf("peak RSS is read from rusage's Maxrss in kilobytes, as Linux gives it; %s counts otherwise", runtime.GOOS)
	}
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	dir := t.TempDir()
	in := filepath.Join(dir, "rl.yaml")
	want, err := writeResourceList(in, fnItems)
	if err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(in)
	if err != nil {
		t.Fatal(err)
	}
	if st.Size() < 10<<20 {
		t.Fatalf("the ResourceList is %d bytes: too small to measure memory proportional to it", st.Size())
	}
	stdin, err := os.Open(in)
	if err != nil {
		t.Fatal(err)
	}
	defer stdin.Close()
	outPath := filepath.Join(dir, "out.yaml")
	stdout, err := os.Create(outPath)
	if err != nil {
		t.Fatal(err)
	}
	defer stdout.Close()
	var stderr bytes.Buffer
	cmd := exec.Command(filepath.Join(binDir, "shipshape"), "fn")
	cmd.Stdin, cmd.Stdout, cmd.Stderr = stdin, stdout, &stderr
	// The command's own pacing of the collector, as users run it: GOGC
	// or GOMEMLIMIT set would replace it.
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "GOGC=") && !strings.HasPrefix(kv, "GOMEMLIMIT=") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	err = cmd.Run()
	if code := cmd.ProcessState.ExitCode(); code != 1 {
		t.Fatalf("exit %d (%v), want 1 (findings)\nstderr: %.2000s", code, err, stderr.String())
	}
	ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	if !ok || ru.Maxrss <= 0 {
		t.Skip("the child's peak RSS is not reported on this system (no rusage Maxrss)")
	}
	rss := ru.Maxrss * 1024
	ratio := float64(rss) / float64(st.Size())
	t.Logf("fn on %d items, %.1f MB: peak RSS %.0f MB, %.1f times the input", fnItems, float64(st.Size())/1e6, float64(rss)/1e6, ratio)
	if ratio > maxFnRSSPerInputByte {
		t.Errorf("peak RSS %.0f MB is %.1f times the input's %.1f MB, want at most %d", float64(rss)/1e6, ratio, float64(st.Size())/1e6, maxFnRSSPerInputByte)
	}
	got, err := countResults(outPath, st.Size(), in)
	if err != nil {
		t.Fatal(err)
	}
	for rule, n := range want {
		if got[rule] != n {
			t.Errorf("%d %s results, want %d (all: %v)", got[rule], rule, n, got)
		}
	}
	if len(got) != len(want) {
		t.Errorf("results by rule %v, want %v", got, want)
	}
}

// writeResourceList writes a ResourceList of n items, as kustomize writes
// them, to path: a Deployment, a ConfigMap and a Service per application.
// One ConfigMap in four has an unquoted `yes` (ambiguous-scalar, per
// object) and one Service in ten selects a label no pod template carries
// (service-no-matching-pods, cross-resource). It returns how many results
// of each rule fn must write.
func writeResourceList(path string, n int) (map[string]int, error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	w := bufio.NewWriter(f)
	want := map[string]int{}
	w.WriteString("apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n")
	for i := range n {
		app, ns := fmt.Sprintf("app-%d", i/3), fmt.Sprintf("team-%d", i/3%50)
		switch i % 3 {
		case 0:
			fmt.Fprintf(w, fnDeployment, app, ns, i)
		case 1:
			value := `"true"`
			if i/3%4 == 0 {
				value = "yes"
				want["ambiguous-scalar"]++
			}
			fmt.Fprintf(w, fnConfigMap, app, ns, value)
		case 2:
			selects := app
			if i/3%10 == 0 {
				selects += "-typo"
				want["service-no-matching-pods"]++
			}
			fmt.Fprintf(w, fnService, app, ns, selects)
		}
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return nil, err
	}
	return want, f.Close()
}

const fnDeployment = `- apiVersion: apps/v1
  kind: Deployment
  metadata:
    name: %[1]s
    namespace: %[2]s
    labels:
      app: %[1]s
    annotations:
      config.kubernetes.io/path: 'apps/%[1]s/deployment.yaml'
      config.kubernetes.io/index: '0'
  spec:
    replicas: 2
    selector:
      matchLabels:
        app: %[1]s
    template:
      metadata:
        labels:
          app: %[1]s
      spec:
        containers:
        - name: main
          image: registry.example.com/%[1]s:1.0.%[3]d
          ports:
          - containerPort: 8080
          resources:
            limits:
              memory: 256Mi
`

const fnConfigMap = `- apiVersion: v1
  kind: ConfigMap
  metadata:
    name: %[1]s-config
    namespace: %[2]s
    annotations:
      config.kubernetes.io/path: 'apps/%[1]s/configmap.yaml'
      config.kubernetes.io/index: '0'
  data:
    enabled: %[3]s
    level: info
`

const fnService = `- apiVersion: v1
  kind: Service
  metadata:
    name: %[1]s
    namespace: %[2]s
    annotations:
      config.kubernetes.io/path: 'apps/%[1]s/service.yaml'
      config.kubernetes.io/index: '0'
  spec:
    selector:
      app: %[3]s
    ports:
    - port: 80
      targetPort: 8080
`

// countResults checks that the ResourceList fn wrote to path begins with
// the input's bytes (lint mode writes the items back as they came) and
// counts its results by rule.
func countResults(path string, inputSize int64, input string) (map[string]int, error) {
	out, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer out.Close()
	in, err := os.Open(input)
	if err != nil {
		return nil, err
	}
	defer in.Close()
	r := bufio.NewReader(out)
	if err := samePrefix(r, bufio.NewReader(in), inputSize); err != nil {
		return nil, err
	}
	got := map[string]int{}
	for {
		line, err := r.ReadString('\n')
		if rest, ok := strings.CutPrefix(line, "- message: '"); ok {
			rule, _, _ := strings.Cut(rest, ":")
			got[rule]++
		}
		if err == io.EOF {
			return got, nil
		}
		if err != nil {
			return nil, err
		}
	}
}

func samePrefix(out, in *bufio.Reader, n int64) error {
	for i := int64(0); i < n; i++ {
		a, err := out.ReadByte()
		if err != nil {
			return fmt.Errorf("the output ends at byte %d of the input's %d", i, n)
		}
		if b, _ := in.ReadByte(); a != b {
			return fmt.Errorf("the output differs from the input at byte %d: lint mode changed the items", i)
		}
	}
	return nil
}
