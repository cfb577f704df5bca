package manifest_test

import (
	"bytes"
	"io"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/shipshape-dev/shipshape/internal/corpus"
	"github.com/shipshape-dev/shipshape/internal/manifest"
)

// Run with: go test -run '^$' -bench . -benchmem ./internal/manifest/
// (SHIPSHAPE_CORPUS or ../shared/corpus). BenchmarkDecodeFloor is the
// yardstick: Parse should cost little more than it.

// BenchmarkDecodeFloor decodes every corpus file into yaml.v3 nodes and does
// nothing else: the floor of scripts/bench, in process and on one core.
func BenchmarkDecodeFloor(b *testing.B) {
	files := corpus.Files(b)
	b.SetBytes(corpus.Bytes(files))
	docs := 0
	for _, f := range files {
		dec := yaml.NewDecoder(bytes.NewReader(f.Data))
		for {
			var n yaml.Node
			if dec.Decode(&n) != nil {
				break
			}
			docs++
		}
	}
	corpus.PerUnit(b, docs, "doc", func() {
		for _, f := range files {
			dec := yaml.NewDecoder(bytes.NewReader(f.Data))
			for {
				var n yaml.Node
				if err := dec.Decode(&n); err == io.EOF || err != nil {
					break
				}
			}
		}
	})
}

// BenchmarkParseCorpus is manifest.Parse over every corpus file: decoding,
// template detection, objects, List items, patch and completeness checks.
func BenchmarkParseCorpus(b *testing.B) {
	files := corpus.Files(b)
	b.SetBytes(corpus.Bytes(files))
	docs := 0
	for _, f := range files {
		docs += manifest.Parse(f.Path, f.Data, manifest.Context{}).Docs
	}
	corpus.PerUnit(b, docs, "doc", func() {
		for _, f := range files {
			manifest.Parse(f.Path, f.Data, manifest.Context{})
		}
	})
}

// BenchmarkParseSmall is the pre-commit case: one 2 KB Deployment.
func BenchmarkParseSmall(b *testing.B) {
	src := []byte(smallManifest)
	b.SetBytes(int64(len(src)))
	corpus.PerUnit(b, 1, "doc", func() {
		manifest.Parse("deploy.yaml", src, manifest.Context{})
	})
}

// BenchmarkParseBroken re-reads a stream with a syntax error document by
// document (the yaml v4 pass for the error's column included).
func BenchmarkParseBroken(b *testing.B) {
	src := []byte(smallManifest + "---\nmetadata: {name: x\n---\n" + smallManifest)
	b.SetBytes(int64(len(src)))
	corpus.PerUnit(b, 3, "doc", func() {
		manifest.Parse("broken.yaml", src, manifest.Context{})
	})
}

const smallManifest = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  namespace: shop
  labels:
    app.kubernetes.io/name: web
    app.kubernetes.io/part-of: shop
    active: yes
  annotations:
    description: the storefront
spec:
  replicas: 3
  selector:
    matchLabels:
      app.kubernetes.io/name: web
  strategy:
    type: RollingUpdate
    rollingUpdate:
      maxSurge: 1
      maxUnavailable: 0
  template:
    metadata:
      labels:
        app.kubernetes.io/name: web
        app.kubernetes.io/part-of: shop
    spec:
      serviceAccountName: web
      securityContext:
        runAsNonRoot: true
        runAsUser: 10001
      containers:
        - name: web
          image: registry.example.com/shop/web:1.27.3
          imagePullPolicy: IfNotPresent
          args: [--port, "8080", --debug, true]
          ports:
            - name: http
              containerPort: 8080
              protocol: TCP
          env:
            - name: VERSION
              value: 1.10
            - name: LOG_LEVEL
              value: info
            - name: FEATURE_FLAGS
              value: "checkout,search"
          resources:
            requests:
              cpu: 100m
              memory: 128Mi
            limits:
              cpu: 500m
              memory: 256Mi
          readinessProbe:
            httpGet:
              path: /healthz
              port: http
            initialDelaySeconds: 5
            periodSeconds: 10
          livenessProbe:
            httpGet:
              path: /healthz
              port: http
            initialDelaySeconds: 15
            periodSeconds: 20
          volumeMounts:
            - name: config
              mountPath: /etc/web
              readOnly: true
      volumes:
        - name: config
          configMap:
            name: web-config
      nodeSelector:
        kubernetes.io/os: linux
`
