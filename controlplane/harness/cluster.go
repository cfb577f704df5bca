package harness

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
)

// Cluster is etcd, kube-apiserver and kube-controller-manager on 127.0.0.1.
type Cluster struct {
	Dir        string // everything of this run: PKI, etcd data, logs, kubeconfig
	Bin        string // the control plane binary (controlplane/cmd/cp)
	Server     string // https://127.0.0.1:PORT
	Kubeconfig string // admin (system:masters) kubeconfig
	Config     *rest.Config
	Client     kubernetes.Interface
	Dynamic    dynamic.Interface
	PKI        *PKI
	Procs      *Procs
	Ports      []int // every port handed to a process of this cluster
}

// port asks for a free port on 127.0.0.1 and remembers it, so that the end
// of a run can check that nothing listens there any more.
func (c *Cluster) port() (int, error) {
	p, err := FreePort()
	if err == nil {
		c.Ports = append(c.Ports, p)
	}
	return p, err
}

// Controllers run by kube-controller-manager: enough for namespaces and
// service accounts to work, StatefulSets to be made and garbage collected
// (LWS), PersistentVolumeClaims to bind and be deleted, and Deployments,
// ReplicaSets and DaemonSets to make their pods (a change that leaves the
// old controller running beside the new one: change_test.go). Pods need no
// more: without a kubelet they stay Pending, which is all the tests need.
var Controllers = "garbagecollector,statefulset,deployment,replicaset,daemonset,serviceaccount,serviceaccount-token,namespace,persistentvolume-binder,pvc-protection,pv-protection"

// Start starts the control plane in dir and waits until it serves requests
// and the default ServiceAccount exists (the controller-manager works).
func Start(ctx context.Context, bin, dir string) (_ *Cluster, err error) {
	c := &Cluster{Dir: dir, Bin: bin, Procs: &Procs{PidDir: os.Getenv("CONTROLPLANE_PIDS")}}
	defer func() {
		if err != nil {
			_ = c.Procs.StopAll(10 * time.Second)
		}
	}()
	for _, d := range []string{"pki", "etcd", "logs"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
			return nil, err
		}
	}
	if c.PKI, err = NewPKI(filepath.Join(dir, "pki")); err != nil {
		return nil, err
	}
	servingCrt, servingKey, err := c.PKI.Issue("apiserver", "kube-apiserver", nil, true)
	if err != nil {
		return nil, err
	}
	adminCrt, adminKey, err := c.PKI.Issue("admin", "admin", []string{"system:masters"}, false)
	if err != nil {
		return nil, err
	}
	kcmCrt, kcmKey, err := c.PKI.Issue("kcm", "system:kube-controller-manager", nil, false)
	if err != nil {
		return nil, err
	}
	saPub, saKey, err := c.PKI.ServiceAccountKey()
	if err != nil {
		return nil, err
	}

	// etcd
	etcdPort, err := c.port()
	if err != nil {
		return nil, err
	}
	peerPort, err := c.port()
	if err != nil {
		return nil, err
	}
	etcdURL := "http://127.0.0.1:" + strconv.Itoa(etcdPort)
	etcd, err := c.Procs.Start("etcd", c.log("etcd"), nil, bin, "etcd", filepath.Join(dir, "etcd"), etcdURL, "http://127.0.0.1:"+strconv.Itoa(peerPort))
	if err != nil {
		return nil, err
	}
	if err := Poll(ctx, "etcd /health", 60*time.Second, etcd, func() (bool, error) {
		resp, err := http.Get(etcdURL + "/health")
		if err != nil {
			return false, err
		}
		resp.Body.Close()
		return resp.StatusCode == 200, fmt.Errorf("status %d", resp.StatusCode)
	}); err != nil {
		return nil, err
	}

	// kube-apiserver
	apiPort, err := c.port()
	if err != nil {
		return nil, err
	}
	c.Server = "https://127.0.0.1:" + strconv.Itoa(apiPort)
	api, err := c.Procs.Start("kube-apiserver", c.log("kube-apiserver"), nil, bin, "kube-apiserver",
		"--etcd-servers="+etcdURL,
		"--bind-address=127.0.0.1",
		"--advertise-address=127.0.0.1",
		"--secure-port="+strconv.Itoa(apiPort),
		"--tls-cert-file="+servingCrt,
		"--tls-private-key-file="+servingKey,
		"--client-ca-file="+c.PKI.CACert,
		"--service-account-issuer="+c.Server,
		"--service-account-key-file="+saPub,
		"--service-account-signing-key-file="+saKey,
		"--service-cluster-ip-range=10.96.0.0/16",
		"--authorization-mode=Node,RBAC",
		"--endpoint-reconciler-type=none",
		"--allow-privileged=true", // as kubeadm and managed clusters set it
		"--cert-dir="+filepath.Join(dir, "pki"),
		"--profiling=false",
		"--v=0",
	)
	if err != nil {
		return nil, err
	}
	adminKubeconfig := filepath.Join(dir, "admin.kubeconfig")
	if err := c.PKI.Kubeconfig(adminKubeconfig, c.Server, adminCrt, adminKey); err != nil {
		return nil, err
	}
	c.Kubeconfig = adminKubeconfig
	if c.Config, err = clientcmd.BuildConfigFromFlags("", adminKubeconfig); err != nil {
		return nil, err
	}
	c.Config.QPS, c.Config.Burst = 200, 400
	if c.Client, err = kubernetes.NewForConfig(c.Config); err != nil {
		return nil, err
	}
	if c.Dynamic, err = dynamic.NewForConfig(c.Config); err != nil {
		return nil, err
	}
	if err := Poll(ctx, "kube-apiserver /readyz", 90*time.Second, api, func() (bool, error) {
		body, err := c.Client.Discovery().RESTClient().Get().AbsPath("/readyz").DoRaw(ctx)
		return err == nil && string(body) == "ok", err
	}); err != nil {
		return nil, err
	}

	// kube-controller-manager
	kcmKubeconfig := filepath.Join(dir, "kcm.kubeconfig")
	if err := c.PKI.Kubeconfig(kcmKubeconfig, c.Server, kcmCrt, kcmKey); err != nil {
		return nil, err
	}
	kcm, err := c.Procs.Start("kube-controller-manager", c.log("kube-controller-manager"), nil, bin, "kube-controller-manager",
		"--kubeconfig="+kcmKubeconfig,
		"--authentication-kubeconfig="+kcmKubeconfig,
		"--authorization-kubeconfig="+kcmKubeconfig,
		"--bind-address=127.0.0.1",
		"--secure-port=0",
		"--leader-elect=false",
		"--controllers="+Controllers,
		"--use-service-account-credentials=true",
		"--service-account-private-key-file="+saKey,
		"--root-ca-file="+c.PKI.CACert,
		"--concurrent-gc-syncs=5",
		"--v=0",
	)
	if err != nil {
		return nil, err
	}
	if err := Poll(ctx, "ServiceAccount default/default (kube-controller-manager works)", 90*time.Second, kcm, func() (bool, error) {
		_, err := c.Client.CoreV1().ServiceAccounts("default").Get(ctx, "default", metav1.GetOptions{})
		return err == nil, err
	}); err != nil {
		return nil, err
	}
	return c, nil
}

func (c *Cluster) log(name string) string { return filepath.Join(c.Dir, "logs", name+".log") }

// Stop stops every process of the cluster (LWS managers included), by pid.
func (c *Cluster) Stop() error { return c.Procs.StopAll(20 * time.Second) }

// EnsureNamespace creates a namespace if it is missing and waits for its
// default ServiceAccount, as a real cluster has it.
func (c *Cluster) EnsureNamespace(ctx context.Context, name string) error {
	_, err := c.Client.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}, metav1.CreateOptions{})
	if err != nil && !apierrors.IsAlreadyExists(err) {
		return err
	}
	return Poll(ctx, "ServiceAccount "+name+"/default", 60*time.Second, nil, func() (bool, error) {
		_, err := c.Client.CoreV1().ServiceAccounts(name).Get(ctx, "default", metav1.GetOptions{})
		return err == nil, err
	})
}
