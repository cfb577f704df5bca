// Command cp is the control plane of shipshape's integration tests: one
// binary with three subcommands, so that a single cached build serves them all.
//
//	cp etcd DATA-DIR CLIENT-URL PEER-URL
//	cp kube-apiserver FLAGS...
//	cp kube-controller-manager FLAGS...
//	cp version
//
// The Kubernetes version is stamped with -ldflags (see scripts/controlplane-test):
// kubectl cannot parse the server's version without it.
package main

import (
	"fmt"
	"net/url"
	"os"
	"os/signal"
	"syscall"
	"time"

	"go.etcd.io/etcd/server/v3/embed"
	"k8s.io/component-base/cli"
	"k8s.io/component-base/version"
	apiserver "k8s.io/kubernetes/cmd/kube-apiserver/app"
	controllermanager "k8s.io/kubernetes/cmd/kube-controller-manager/app"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: cp etcd|kube-apiserver|kube-controller-manager|version ...")
		os.Exit(2)
	}
	sub, rest := os.Args[1], os.Args[2:]
	switch sub {
	case "version":
		fmt.Println(version.Get().GitVersion)
	case "etcd":
		os.Exit(runEtcd(rest))
	case "kube-apiserver":
		cmd := apiserver.NewAPIServerCommand()
		cmd.SetArgs(rest)
		os.Exit(cli.Run(cmd))
	case "kube-controller-manager":
		cmd := controllermanager.NewControllerManagerCommand()
		cmd.SetArgs(rest)
		os.Exit(cli.Run(cmd))
	default:
		fmt.Fprintf(os.Stderr, "cp: unknown subcommand %q\n", sub)
		os.Exit(2)
	}
}

// runEtcd runs a single-member embedded etcd on the given client and peer
// URLs (loopback only) until SIGTERM or SIGINT.
func runEtcd(args []string) int {
	if len(args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: cp etcd DATA-DIR CLIENT-URL PEER-URL")
		return 2
	}
	client, err := url.Parse(args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	peer, err := url.Parse(args[2])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	cfg := embed.NewConfig()
	cfg.Dir = args[0]
	cfg.Name = "cp"
	cfg.ListenClientUrls = []url.URL{*client}
	cfg.AdvertiseClientUrls = []url.URL{*client}
	cfg.ListenPeerUrls = []url.URL{*peer}
	cfg.AdvertisePeerUrls = []url.URL{*peer}
	cfg.InitialCluster = cfg.Name + "=" + peer.String()
	cfg.LogLevel = "error"
	cfg.UnsafeNoFsync = true // test data only: fsync costs seconds on a shared disk
	e, err := embed.StartEtcd(cfg)
	if err != nil {
		fmt.Fprintln(os.Stderr, "etcd:", err)
		return 1
	}
	defer e.Close()
	select {
	case <-e.Server.ReadyNotify():
	case <-time.After(60 * time.Second):
		fmt.Fprintln(os.Stderr, "etcd: not ready after 60s")
		return 1
	}
	fmt.Println("etcd ready")
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGTERM, syscall.SIGINT)
	select {
	case <-sig:
	case err := <-e.Err():
		fmt.Fprintln(os.Stderr, "etcd:", err)
		return 1
	}
	return 0
}
