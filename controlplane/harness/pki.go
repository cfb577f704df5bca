package harness

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"time"
)

// PKI is a throw-away certificate authority for one test run: every key is
// generated when the run starts and lives in its temporary directory.
type PKI struct {
	Dir    string
	CACert string // PEM file
	caCert *x509.Certificate
	caKey  *ecdsa.PrivateKey
	serial int64
}

// NewPKI writes a self-signed CA into dir.
func NewPKI(dir string) (*PKI, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: "shipshape-controlplane-ca"},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(24 * time.Hour),
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature,
		BasicConstraintsValid: true,
		IsCA:                  true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return nil, err
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		return nil, err
	}
	p := &PKI{Dir: dir, CACert: filepath.Join(dir, "ca.crt"), caCert: cert, caKey: key, serial: 1}
	if err := writePEM(p.CACert, "CERTIFICATE", der); err != nil {
		return nil, err
	}
	return p, nil
}

// Issue writes name.crt and name.key: a certificate for a client (CN, O) and,
// when server is set, for serving on 127.0.0.1 and localhost.
func (p *PKI) Issue(name, cn string, orgs []string, server bool) (certFile, keyFile string, err error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return "", "", err
	}
	p.serial++
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(p.serial),
		Subject:      pkix.Name{CommonName: cn, Organization: orgs},
		NotBefore:    time.Now().Add(-time.Hour),
		NotAfter:     time.Now().Add(24 * time.Hour),
		KeyUsage:     x509.KeyUsageDigitalSignature | x509.KeyUsageKeyEncipherment,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth},
	}
	if server {
		tmpl.ExtKeyUsage = append(tmpl.ExtKeyUsage, x509.ExtKeyUsageServerAuth)
		tmpl.IPAddresses = []net.IP{net.IPv4(127, 0, 0, 1)}
		tmpl.DNSNames = []string{"localhost"}
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, p.caCert, &key.PublicKey, p.caKey)
	if err != nil {
		return "", "", err
	}
	kder, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		return "", "", err
	}
	certFile, keyFile = filepath.Join(p.Dir, name+".crt"), filepath.Join(p.Dir, name+".key")
	if err := writePEM(certFile, "CERTIFICATE", der); err != nil {
		return "", "", err
	}
	return certFile, keyFile, writePEM(keyFile, "EC PRIVATE KEY", kder)
}

// ServiceAccountKey writes an RSA key pair for signing service account tokens.
func (p *PKI) ServiceAccountKey() (pubFile, keyFile string, err error) {
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		return "", "", err
	}
	pub, err := x509.MarshalPKIXPublicKey(&key.PublicKey)
	if err != nil {
		return "", "", err
	}
	pubFile, keyFile = filepath.Join(p.Dir, "sa.pub"), filepath.Join(p.Dir, "sa.key")
	if err := writePEM(pubFile, "PUBLIC KEY", pub); err != nil {
		return "", "", err
	}
	return pubFile, keyFile, writePEM(keyFile, "RSA PRIVATE KEY", x509.MarshalPKCS1PrivateKey(key))
}

// CABundle is the CA certificate in PEM, as webhook configurations carry it.
func (p *PKI) CABundle() ([]byte, error) { return os.ReadFile(p.CACert) }

// Kubeconfig writes a kubeconfig for a client certificate.
func (p *PKI) Kubeconfig(file, server, certFile, keyFile string) error {
	cfg := fmt.Sprintf(`apiVersion: v1
kind: Config
clusters:
- name: cp
  cluster:
    server: %s
    certificate-authority: %s
users:
- name: u
  user:
    client-certificate: %s
    client-key: %s
contexts:
- name: cp
  context: {cluster: cp, user: u, namespace: default}
current-context: cp
`, server, p.CACert, certFile, keyFile)
	return os.WriteFile(file, []byte(cfg), 0o600)
}

func writePEM(file, typ string, der []byte) error {
	return os.WriteFile(file, pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: der}), 0o600)
}
