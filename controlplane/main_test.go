package controlplane

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/shipshape-dev/shipshape/controlplane/harness"
)

// The control plane every test of this package uses, started once by TestMain.
var (
	cluster   *harness.Cluster
	shipshape string            // the shipshape CLI
	lwsDirs   map[string]string // LWS version -> module directory (CRD, webhook manifests)
	lwsBins   map[string]string // LWS version -> manager binary
	lwsOrder  []string          // LWS versions, oldest first
)

// TestMain starts etcd, kube-apiserver and kube-controller-manager on
// 127.0.0.1, runs the tests, and stops every process it started, by pid: after
// the tests, on SIGINT or SIGTERM, and when starting fails. Without the
// binaries (CONTROLPLANE_BIN, set by scripts/controlplane-test) it runs no
// test and says so.
func TestMain(m *testing.M) {
	os.Exit(run(m))
}

func run(m *testing.M) int {
	bin := os.Getenv("CONTROLPLANE_BIN")
	if bin == "" {
		fmt.Println("controlplane: CONTROLPLANE_BIN is not set: run scripts/controlplane-test, which builds the control plane and sets it")
		return 0
	}
	shipshape = os.Getenv("SHIPSHAPE_BIN")
	lwsDirs, lwsBins = map[string]string{}, map[string]string{}
	dirs := strings.Fields(os.Getenv("CONTROLPLANE_LWS_DIRS"))
	for i, v := range strings.Fields(os.Getenv("CONTROLPLANE_LWS_VERSIONS")) {
		lwsOrder = append(lwsOrder, v)
		lwsBins[v] = filepath.Join(bin, "lws-"+v)
		if i < len(dirs) {
			lwsDirs[v] = dirs[i]
		}
	}
	dir, err := os.MkdirTemp("", "controlplane-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	if d := os.Getenv("CONTROLPLANE_PIDS"); d != "" {
		// scripts/controlplane-test sends SIGTERM here when interrupted.
		_ = os.WriteFile(filepath.Join(d, "test-binary"), []byte(fmt.Sprint(os.Getpid())), 0o644)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()

	start := time.Now()
	c, err := harness.Start(ctx, filepath.Join(bin, "cp"), dir)
	if err != nil {
		fmt.Fprintln(os.Stderr, "controlplane: start:", err)
		return 1
	}
	cluster = c
	fmt.Printf("controlplane: etcd, kube-apiserver, kube-controller-manager up at %s in %.1fs (dir %s)\n", c.Server, time.Since(start).Seconds(), dir)

	// Stop everything on SIGINT/SIGTERM too, then exit non-zero.
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGINT, syscall.SIGTERM)
	go func() {
		s := <-sig
		fmt.Fprintf(os.Stderr, "controlplane: %v: stopping the control plane\n", s)
		if err := c.Stop(); err != nil {
			fmt.Fprintln(os.Stderr, "controlplane:", err)
		}
		os.Exit(1)
	}()

	code := m.Run()
	stopErr := c.Stop()
	if stopErr != nil {
		fmt.Fprintln(os.Stderr, "controlplane: stop:", stopErr)
		code = 1
	}
	if left := leftovers(c); left != "" {
		fmt.Fprintln(os.Stderr, "controlplane: left behind:", left)
		code = 1
	} else {
		fmt.Println("controlplane: every process started was stopped; none of their ports is still listening")
	}
	if code == 0 {
		os.RemoveAll(dir)
	} else {
		fmt.Fprintln(os.Stderr, "controlplane: logs kept in", filepath.Join(dir, "logs"))
	}
	return code
}

// leftovers names each process this run started that is still alive (its pid
// still exists in /proc with the same binary) and each child of this test
// binary still running.
func leftovers(c *harness.Cluster) string {
	var left []string
	for _, p := range c.Procs.Running() {
		left = append(left, fmt.Sprintf("%s (pid %d)", p.Name, p.Pid()))
	}
	// Any process whose parent is this test binary (kubectl, kapp included).
	procs, _ := filepath.Glob("/proc/[0-9]*/stat")
	self := fmt.Sprint(os.Getpid())
	for _, f := range procs {
		b, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		s := string(b)
		i := strings.LastIndex(s, ")")
		if i < 0 {
			continue
		}
		fields := strings.Fields(s[i+1:])
		if len(fields) > 1 && fields[1] == self && fields[0] != "Z" {
			left = append(left, "child "+strings.TrimSuffix(strings.TrimPrefix(f, "/proc/"), "/stat")+" "+s[:i+1])
		}
	}
	for _, p := range c.Ports {
		if harness.PortOpen(p) {
			left = append(left, fmt.Sprintf("a listener on 127.0.0.1:%d", p))
		}
	}
	return strings.Join(left, ", ")
}

// TestControlPlane checks the fixture itself: the server's version is the one
// stamped at build time and kubectl can talk to it.
func TestControlPlane(t *testing.T) {
	v, err := cluster.Client.Discovery().ServerVersion()
	if err != nil {
		t.Fatal(err)
	}
	if want := os.Getenv("CONTROLPLANE_K8S_VERSION"); v.GitVersion != want {
		t.Errorf("server version %q, want %q", v.GitVersion, want)
	}
	out, err := kubectl(t, "version", "-o", "json")
	if err != nil {
		t.Fatalf("kubectl version: %v\n%s", err, out)
	}
	t.Logf("kube-apiserver %s at %s", v.GitVersion, cluster.Server)
}
