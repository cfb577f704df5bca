package main

import (
	"fmt"
	"io"
	"runtime"
	"runtime/debug"
	"strings"
)

// runVersion prints what the binary knows of its build: the version (set
// with -ldflags "-X main.version=...", else the module's, which go build
// derives from the VCS tag or commit), the VCS revision and whether the
// work tree had changes, and the Go toolchain. A binary built without VCS
// information (-buildvcs=false, go test, a source tarball) says so. It
// reads the build information only when asked: nothing runs at start-up.
func runVersion(args []string, stdout, stderr io.Writer) int {
	if wantsHelp(args) {
		writeHelp(stdout, cmdVersion, nil)
		return exitOK
	}
	if len(args) > 0 {
		fmt.Fprintf(stderr, "shipshape version: takes no arguments; run 'shipshape version --help'\n")
		return exitUsage
	}
	info, _ := debug.ReadBuildInfo()
	fmt.Fprint(stdout, versionText(version, info))
	return exitOK
}

// toolVersion is the version `shipshape version` prints first: what
// reports name the tool by (SARIF's tool.driver.version). It reads the
// build information, so it is called only for a report that shows it.
func toolVersion() string {
	info, _ := debug.ReadBuildInfo()
	return releaseVersion(version, info)
}

// releaseVersion is the ldflags version, else the module's (go build
// derives it from the VCS tag or commit), else "(devel)".
func releaseVersion(ldflagsVersion string, info *debug.BuildInfo) string {
	if ldflagsVersion != "dev" && ldflagsVersion != "" {
		return ldflagsVersion
	}
	if info != nil && info.Main.Version != "" {
		return info.Main.Version
	}
	return "(devel)"
}

// versionText formats the build information in info (nil: none).
//
//	shipshape v0.0.0-20261124062000-57cc914b1e2f+dirty
//	revision 57cc914b1e2f0d4c0ad2d4c1e5c1c8b3b2e1d0f9 (modified), committed 2026-11-24T06:20:00Z
//	go1.26.8 linux/amd64
func versionText(ldflagsVersion string, info *debug.BuildInfo) string {
	v := releaseVersion(ldflagsVersion, info)
	vcs := map[string]string{}
	goVersion := runtime.Version()
	if info != nil {
		for _, s := range info.Settings {
			vcs[s.Key] = s.Value
		}
		if info.GoVersion != "" {
			goVersion = info.GoVersion
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "shipshape %s\n", v)
	if rev := vcs["vcs.revision"]; rev != "" {
		fmt.Fprintf(&b, "revision %s", rev)
		switch vcs["vcs.modified"] {
		case "true":
			b.WriteString(" (modified)")
		case "false":
			b.WriteString(" (clean)")
		}
		if t := vcs["vcs.time"]; t != "" {
			fmt.Fprintf(&b, ", committed %s", t)
		}
		b.WriteString("\n")
	} else {
		b.WriteString("revision unknown (built without VCS information)\n")
	}
	fmt.Fprintf(&b, "%s %s/%s\n", goVersion, runtime.GOOS, runtime.GOARCH)
	return b.String()
}
