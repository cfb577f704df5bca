package harness

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/base64"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/yaml"
)

// LWS is a running LeaderWorkerSet manager, as released (built from the
// module at its version), serving its webhooks on 127.0.0.1.
type LWS struct {
	Version string
	Proc    *Proc
	cluster *Cluster
	hooks   []schema.GroupVersionResource
	names   []string
}

var (
	crdGVR = schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"}
	// LWSGVR is the LeaderWorkerSet resource.
	LWSGVR = schema.GroupVersionResource{Group: "leaderworkerset.x-k8s.io", Version: "v1", Resource: "leaderworkersets"}
)

// InstallLWSCRD applies the LeaderWorkerSet CRD of the module in moduleDir
// (server-side, so that one version replaces another) and waits until it is
// established.
func (c *Cluster) InstallLWSCRD(ctx context.Context, moduleDir string) error {
	b, err := os.ReadFile(filepath.Join(moduleDir, "config/crd/bases/leaderworkerset.x-k8s.io_leaderworkersets.yaml"))
	if err != nil {
		return err
	}
	objs, err := DecodeAll(b)
	if err != nil || len(objs) != 1 {
		return fmt.Errorf("LWS CRD: %d objects, %v", len(objs), err)
	}
	if err := c.ServerSideApply(ctx, crdGVR, objs[0]); err != nil {
		return err
	}
	return Poll(ctx, "LWS CRD established", 60*time.Second, nil, func() (bool, error) {
		u, err := c.Dynamic.Resource(crdGVR).Get(ctx, objs[0].GetName(), metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		conds, _, _ := unstructured.NestedSlice(u.Object, "status", "conditions")
		for _, cond := range conds {
			m, _ := cond.(map[string]any)
			if m["type"] == "Established" && m["status"] == "True" {
				return true, nil
			}
		}
		return false, fmt.Errorf("not established")
	})
}

// StartLWS installs the CRD and webhook configurations of the LWS module in
// moduleDir and starts its manager (bin) against the cluster. It returns when
// the webhooks answer a server-side dry-run create of a LeaderWorkerSet.
func (c *Cluster) StartLWS(ctx context.Context, version, moduleDir, bin string) (_ *LWS, err error) {
	l := &LWS{Version: version, cluster: c}
	defer func() {
		if err != nil {
			_ = l.Stop()
		}
	}()
	if err := c.InstallLWSCRD(ctx, moduleDir); err != nil {
		return nil, err
	}
	dir := filepath.Join(c.Dir, "lws-"+version)
	certDir := filepath.Join(dir, "certs")
	if err := os.MkdirAll(certDir, 0o755); err != nil {
		return nil, err
	}
	crt, key, err := c.PKI.Issue("lws-webhook-"+version, "lws-webhook", nil, true)
	if err != nil {
		return nil, err
	}
	if err := os.Rename(crt, filepath.Join(certDir, "tls.crt")); err != nil {
		return nil, err
	}
	if err := os.Rename(key, filepath.Join(certDir, "tls.key")); err != nil {
		return nil, err
	}
	webhookPort, err := c.port()
	if err != nil {
		return nil, err
	}
	healthPort, err := c.port()
	if err != nil {
		return nil, err
	}
	config := fmt.Sprintf(`apiVersion: config.lws.x-k8s.io/v1alpha1
kind: Configuration
leaderElection:
  leaderElect: false
internalCertManagement:
  enable: false
webhook:
  host: 127.0.0.1
  port: %d
  certDir: %s
metrics:
  bindAddress: "0"
health:
  healthProbeBindAddress: 127.0.0.1:%d
`, webhookPort, certDir, healthPort)
	configFile := filepath.Join(dir, "config.yaml")
	if err := os.WriteFile(configFile, []byte(config), 0o644); err != nil {
		return nil, err
	}

	// Webhook configurations as released, pointed at 127.0.0.1 by URL
	// instead of at a Service (there are no Services without kube-proxy).
	b, err := os.ReadFile(filepath.Join(moduleDir, "config/webhook/manifests.yaml"))
	if err != nil {
		return nil, err
	}
	hooks, err := DecodeAll(b)
	if err != nil {
		return nil, err
	}
	caBundle, err := c.PKI.CABundle()
	if err != nil {
		return nil, err
	}
	for _, h := range hooks {
		whs, _, _ := unstructured.NestedSlice(h.Object, "webhooks")
		for i, w := range whs {
			m := w.(map[string]any)
			cc := m["clientConfig"].(map[string]any)
			svc := cc["service"].(map[string]any)
			m["clientConfig"] = map[string]any{
				"url":      fmt.Sprintf("https://127.0.0.1:%d%s", webhookPort, svc["path"]),
				"caBundle": base64.StdEncoding.EncodeToString(caBundle),
			}
			m["timeoutSeconds"] = int64(10)
			whs[i] = m
		}
		if err := unstructured.SetNestedSlice(h.Object, whs, "webhooks"); err != nil {
			return nil, err
		}
		h.SetName("lws-" + h.GetName())
		gvr := schema.GroupVersionResource{Group: "admissionregistration.k8s.io", Version: "v1", Resource: strings.ToLower(h.GetKind()) + "s"}
		l.hooks = append(l.hooks, gvr)
		l.names = append(l.names, h.GetName())
	}

	l.Proc, err = c.Procs.Start("lws-manager-"+version, c.log("lws-manager-"+version), []string{"KUBECONFIG=" + c.Kubeconfig}, bin, "--config="+configFile)
	if err != nil {
		return nil, err
	}
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(caBundle)
	hc := &http.Client{Timeout: 2 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}}
	if err := Poll(ctx, "LWS manager "+version+" webhook server", 90*time.Second, l.Proc, func() (bool, error) {
		// Any HTTP answer from the TLS webhook server means it is serving.
		resp, err := hc.Get(fmt.Sprintf("https://127.0.0.1:%d/", webhookPort))
		if err != nil {
			return false, err
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return true, nil
	}); err != nil {
		return nil, err
	}
	for i, h := range hooks {
		if err := c.ServerSideApply(ctx, l.hooks[i], h); err != nil {
			return nil, err
		}
	}
	probe := &unstructured.Unstructured{}
	if err := yaml.Unmarshal([]byte(`apiVersion: leaderworkerset.x-k8s.io/v1
kind: LeaderWorkerSet
metadata: {name: readiness-probe, namespace: default}
spec:
  leaderWorkerTemplate:
    workerTemplate:
      spec:
        containers: [{name: c, image: busybox}]
`), &probe.Object); err != nil {
		return nil, err
	}
	err = Poll(ctx, "LWS "+version+" webhooks answer a dry-run create", 60*time.Second, l.Proc, func() (bool, error) {
		_, err := c.Dynamic.Resource(LWSGVR).Namespace("default").Create(ctx, probe, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
		return err == nil, err
	})
	if err != nil {
		return nil, err
	}
	return l, nil
}

// Stop removes the webhook configurations (so that nothing calls a stopped
// server) and stops the manager by pid.
func (l *LWS) Stop() error {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for i, gvr := range l.hooks {
		err := l.cluster.Dynamic.Resource(gvr).Delete(ctx, l.names[i], metav1.DeleteOptions{})
		if err != nil && !apierrors.IsNotFound(err) {
			return err
		}
	}
	if l.Proc == nil {
		return nil
	}
	return l.Proc.Stop(20 * time.Second)
}

// ServerSideApply applies obj with field manager "controlplane-test", forcing
// conflicts.
func (c *Cluster) ServerSideApply(ctx context.Context, gvr schema.GroupVersionResource, obj *unstructured.Unstructured) error {
	data, err := obj.MarshalJSON()
	if err != nil {
		return err
	}
	force := true
	r := c.Dynamic.Resource(gvr)
	if ns := obj.GetNamespace(); ns != "" {
		_, err = r.Namespace(ns).Patch(ctx, obj.GetName(), types.ApplyPatchType, data, metav1.PatchOptions{FieldManager: "controlplane-test", Force: &force})
	} else {
		_, err = r.Patch(ctx, obj.GetName(), types.ApplyPatchType, data, metav1.PatchOptions{FieldManager: "controlplane-test", Force: &force})
	}
	if err != nil {
		return fmt.Errorf("apply %s %s: %w", obj.GetKind(), obj.GetName(), err)
	}
	return nil
}

// DecodeAll reads the YAML documents of b into objects, skipping empty ones.
func DecodeAll(b []byte) ([]*unstructured.Unstructured, error) {
	d := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(b), 4096)
	var out []*unstructured.Unstructured
	for {
		u := &unstructured.Unstructured{}
		if err := d.Decode(&u.Object); err != nil {
			if err == io.EOF {
				return out, nil
			}
			return nil, err
		}
		if len(u.Object) > 0 {
			out = append(out, u)
		}
	}
}
