// Package harness starts a Kubernetes control plane on 127.0.0.1 for
// shipshape's integration tests and stops every process it started, by pid.
package harness

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Proc is one child process. Its stdout and stderr go to Log.
type Proc struct {
	Name string
	Log  string
	cmd  *exec.Cmd
	done chan struct{}
	err  error
	pids string // the pid file naming this process while it runs
}

// Procs keeps every process a run started, so that all of them can be stopped
// by pid. Each running child also has a file in PidDir, named by its pid and
// holding its command line, so that scripts/controlplane-test can stop what a
// killed test binary left behind.
type Procs struct {
	PidDir string
	mu     sync.Mutex
	all    []*Proc
}

// Start runs bin with args and env (added to the environment), with its own
// process group (a terminal's ^C reaches the test binary, which stops the
// children in order) and SIGKILL as parent-death signal (if the test binary
// is killed, the kernel ends the children).
func (ps *Procs) Start(name, logFile string, env []string, bin string, args ...string) (*Proc, error) {
	out, err := os.OpenFile(logFile, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(bin, args...)
	cmd.Stdout, cmd.Stderr = out, out
	cmd.Env = append(os.Environ(), env...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		out.Close()
		return nil, fmt.Errorf("start %s: %w", name, err)
	}
	p := &Proc{Name: name, Log: logFile, cmd: cmd, done: make(chan struct{})}
	if ps.PidDir != "" {
		p.pids = filepath.Join(ps.PidDir, strconv.Itoa(cmd.Process.Pid))
		_ = os.WriteFile(p.pids, []byte(bin+"\n"), 0o644)
	}
	go func() {
		p.err = cmd.Wait()
		out.Close()
		close(p.done)
	}()
	ps.mu.Lock()
	ps.all = append(ps.all, p)
	ps.mu.Unlock()
	return p, nil
}

// Pid is the child's process id.
func (p *Proc) Pid() int { return p.cmd.Process.Pid }

// Exited says whether the process has ended, and how.
func (p *Proc) Exited() (bool, error) {
	select {
	case <-p.done:
		return true, p.err
	default:
		return false, nil
	}
}

// Stop sends SIGTERM, waits up to grace, then SIGKILL and waits for the exit.
func (p *Proc) Stop(grace time.Duration) error {
	defer func() {
		if p.pids != "" {
			os.Remove(p.pids)
		}
	}()
	if done, _ := p.Exited(); done {
		return nil
	}
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.done:
		return nil
	case <-time.After(grace):
	}
	_ = p.cmd.Process.Kill()
	select {
	case <-p.done:
		return fmt.Errorf("%s (pid %d) did not stop within %s of SIGTERM: killed", p.Name, p.Pid(), grace)
	case <-time.After(10 * time.Second):
		return fmt.Errorf("%s (pid %d) still running 10s after SIGKILL", p.Name, p.Pid())
	}
}

// Tail is the end of the process's log, for error messages.
func (p *Proc) Tail(n int) string {
	b, _ := os.ReadFile(p.Log)
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// StopAll stops every process still running, the last started first.
func (ps *Procs) StopAll(grace time.Duration) error {
	ps.mu.Lock()
	all := append([]*Proc(nil), ps.all...)
	ps.mu.Unlock()
	var errs []error
	for i := len(all) - 1; i >= 0; i-- {
		if err := all[i].Stop(grace); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// Running lists the processes not yet ended.
func (ps *Procs) Running() []*Proc {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	var run []*Proc
	for _, p := range ps.all {
		if done, _ := p.Exited(); !done {
			run = append(run, p)
		}
	}
	return run
}

// FreePort asks the kernel for a free TCP port on 127.0.0.1.
func FreePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// PortOpen says whether something accepts connections on 127.0.0.1:port.
func PortOpen(port int) bool {
	c, err := net.DialTimeout("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)), time.Second)
	if err != nil {
		return false
	}
	c.Close()
	return true
}

// Poll calls cond every interval until it returns true, returns an error, or
// the deadline passes; then it says what it waited for. When proc is not nil
// and ends meanwhile, Poll stops with the end of its log.
func Poll(ctx context.Context, what string, timeout time.Duration, proc *Proc, cond func() (bool, error)) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	var last error
	for {
		ok, err := cond()
		if ok {
			return nil
		}
		last = err
		if proc != nil {
			if done, perr := proc.Exited(); done {
				return fmt.Errorf("%s: %s exited (%v) while waiting; log:\n%s", what, proc.Name, perr, proc.Tail(30))
			}
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%s: not within %s (last error: %v)", what, timeout, last)
		case <-tick.C:
		}
	}
}
