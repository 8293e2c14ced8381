package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// lspProc is the real server over stdio, with a client that records when
// each publishDiagnostics arrives and for which document version.
type lspProc struct {
	cmd    *exec.Cmd
	in     io.WriteCloser
	wmu    sync.Mutex // one message at a time on in
	mu     sync.Mutex
	cond   *sync.Cond
	nextID int
	resp   map[int]json.RawMessage
	pubs   map[string]map[int]time.Time // uri -> version -> first arrival
	last   map[string][]string          // uri -> latest diagnostics ("severity message")
}

func startServer(t *testing.T) *lspProc {
	bin := binary
	if b := os.Getenv("ORDERING_LATENCY_BIN"); b != "" {
		bin = b // another build, measured by the same client (before/after)
	}
	cmd := exec.Command(bin, "serve", "--stdio")
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = io.Discard
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p := &lspProc{cmd: cmd, in: in, resp: map[int]json.RawMessage{}, pubs: map[string]map[int]time.Time{}, last: map[string][]string{}}
	p.cond = sync.NewCond(&p.mu)
	go p.read(bufio.NewReader(out))
	return p
}

func (p *lspProc) read(r *bufio.Reader) {
	for {
		n := 0
		for {
			line, err := r.ReadString('\n')
			if err != nil {
				p.mu.Lock()
				p.cond.Broadcast()
				p.mu.Unlock()
				return
			}
			line = strings.TrimSpace(line)
			if line == "" {
				break
			}
			if v, ok := strings.CutPrefix(line, "Content-Length:"); ok {
				n, _ = strconv.Atoi(strings.TrimSpace(v))
			}
		}
		body := make([]byte, n)
		if _, err := io.ReadFull(r, body); err != nil {
			return
		}
		now := time.Now()
		var m struct {
			ID     *int            `json:"id"`
			Method string          `json:"method"`
			Params json.RawMessage `json:"params"`
			Result json.RawMessage `json:"result"`
		}
		if json.Unmarshal(body, &m) != nil {
			continue
		}
		p.mu.Lock()
		switch {
		case m.Method == "textDocument/publishDiagnostics":
			var pd struct {
				URI         string `json:"uri"`
				Version     *int   `json:"version"`
				Diagnostics []struct {
					Severity int    `json:"severity"`
					Message  string `json:"message"`
				} `json:"diagnostics"`
			}
			json.Unmarshal(m.Params, &pd)
			var ds []string
			for _, d := range pd.Diagnostics {
				ds = append(ds, fmt.Sprintf("%d %s", d.Severity, d.Message))
			}
			sort.Strings(ds)
			p.last[pd.URI] = ds
			v := -1
			if pd.Version != nil {
				v = *pd.Version
			}
			if p.pubs[pd.URI] == nil {
				p.pubs[pd.URI] = map[int]time.Time{}
			}
			if _, ok := p.pubs[pd.URI][v]; !ok {
				p.pubs[pd.URI][v] = now
			}
		case m.ID != nil && m.Method == "":
			p.resp[*m.ID] = m.Result
		case m.ID != nil:
			// a request from the server (workDoneProgress/create...): answer it
			p.mu.Unlock()
			p.send(map[string]any{"jsonrpc": "2.0", "id": *m.ID, "result": nil})
			p.mu.Lock()
		}
		p.cond.Broadcast()
		p.mu.Unlock()
	}
}

func (p *lspProc) send(msg map[string]any) {
	b, _ := json.Marshal(msg)
	p.wmu.Lock()
	defer p.wmu.Unlock()
	fmt.Fprintf(p.in, "Content-Length: %d\r\n\r\n%s", len(b), b)
}

// cpu is the server's CPU time so far (user + system).
func (p *lspProc) cpu() time.Duration {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", p.cmd.Process.Pid))
	if err != nil {
		return 0
	}
	s := string(b)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	if len(f) < 13 {
		return 0
	}
	u, _ := strconv.ParseInt(f[11], 10, 64)
	k, _ := strconv.ParseInt(f[12], 10, 64)
	return time.Duration(u+k) * 10 * time.Millisecond // USER_HZ is 100 on Linux
}

func (p *lspProc) notify(method string, params any) {
	p.send(map[string]any{"jsonrpc": "2.0", "method": method, "params": params})
}

func (p *lspProc) call(t *testing.T, method string, params any) json.RawMessage {
	p.mu.Lock()
	p.nextID++
	id := p.nextID
	p.mu.Unlock()
	p.send(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
	deadline := time.Now().Add(10 * time.Minute)
	p.mu.Lock()
	defer p.mu.Unlock()
	for {
		if r, ok := p.resp[id]; ok {
			delete(p.resp, id)
			return r
		}
		if time.Now().After(deadline) || p.cmd.ProcessState != nil {
			t.Fatalf("no answer to %s", method)
		}
		p.cond.Wait()
	}
}

// change sends a document's whole new text, as an editor that does not
// send ranges does.
func (p *lspProc) change(uri string, version int, text string) {
	p.notify("textDocument/didChange", map[string]any{
		"textDocument":   map[string]any{"uri": uri, "version": version},
		"contentChanges": []map[string]any{{"text": text}},
	})
}

func (p *lspProc) waitPublish(t *testing.T, uri string, version int) time.Time {
	deadline := time.Now().Add(3 * time.Minute)
	go func() { time.Sleep(3 * time.Minute); p.mu.Lock(); p.cond.Broadcast(); p.mu.Unlock() }()
	p.mu.Lock()
	defer p.mu.Unlock()
	for {
		if at, ok := p.pubs[uri][version]; ok {
			return at
		}
		if time.Now().After(deadline) {
			t.Fatalf("no diagnostics for %s version %d", uri, version)
		}
		p.cond.Wait()
	}
}

// memory is the server's VmRSS and VmHWM in bytes.
func (p *lspProc) memory() (rss, hwm int64) {
	st := p.status()
	return st["VmRSS:"], st["VmHWM:"]
}

// memoryParts is the resident memory of the server's own (anonymous)
// pages and of the files it maps (the chunk cache's packs: the kernel
// drops those pages first, and another process reading the packs shares
// them).
func (p *lspProc) memoryParts() (anon, file int64) {
	st := p.status()
	return st["RssAnon:"], st["RssFile:"]
}

// status is the server's /proc status lines in kB, as bytes, by name
// with its colon; empty once the process is gone.
func (p *lspProc) status() map[string]int64 {
	out := map[string]int64{}
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", p.cmd.Process.Pid))
	if err != nil {
		return out
	}
	for _, line := range strings.Split(string(b), "\n") {
		if f := strings.Fields(line); len(f) >= 2 {
			kb, _ := strconv.ParseInt(f[1], 10, 64)
			out[f[0]] = kb << 10
		}
	}
	return out
}

func (p *lspProc) stop() {
	p.in.Close()
	done := make(chan struct{})
	go func() { p.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		p.cmd.Process.Kill()
	}
}
