// Command fakegithub serves actiontest.GitHub on a loopback address, for end-to-end runs
// of the Action in a container by the optional developer script scripts/container-e2e.sh
// (it drives ../shared/tools/container-e2e.sh, present on the project's development machines
// only, with E2E_API_URL):
//
//	go run ./action/actiontest/fakegithub -addr 127.0.0.1:8089 -state /tmp/gh.json &
//	E2E_API_URL=http://127.0.0.1:8089/api/v3 container-e2e.sh .
//
// After every request it rewrites -state with the requests and comments so far (JSON).
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/signal"
	"sync"
	"syscall"
	"time"

	"github.com/agentv/action/action/actiontest"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:8089", "loopback address to listen on")
	state := flag.String("state", "", "file to write requests and comments to after each request")
	viewer := flag.String("viewer", "", "login GET /user answers with (empty: 403, like GITHUB_TOKEN)")
	token := flag.String("token", "", "the only token accepted (empty: any)")
	flag.Parse()
	if err := run(*addr, *state, *viewer, *token); err != nil {
		fmt.Fprintln(os.Stderr, "fakegithub:", err)
		os.Exit(1)
	}
}

func run(addr, state, viewer, token string) error {
	srv, ln, gh, err := listen(addr, state, viewer, token)
	if err != nil {
		return err
	}
	fmt.Println(gh.APIURL())
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	go func() {
		<-ctx.Done()
		shutdown, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(shutdown)
	}()
	if err := srv.Serve(ln); err != http.ErrServerClosed {
		return err
	}
	return nil
}

// listen opens addr (loopback only) and returns the server to Serve on it: the fake API,
// which rewrites state after every request.
func listen(addr, state, viewer, token string) (*http.Server, net.Listener, *actiontest.GitHub, error) {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, nil, nil, err
	}
	if ip := net.ParseIP(host); ip == nil || !ip.IsLoopback() {
		return nil, nil, nil, fmt.Errorf("refusing to listen on %s: loopback addresses only", addr)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, nil, nil, err
	}
	gh := actiontest.NewGitHub()
	gh.Viewer, gh.Token = viewer, token
	gh.SetBaseURL("http://" + ln.Addr().String())
	var (
		mu  sync.Mutex // one request at a time keeps the log in order; the Action makes a handful
		log []actiontest.Request
	)
	h := gh.Handler()
	srv := &http.Server{ReadHeaderTimeout: 10 * time.Second, Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		h.ServeHTTP(w, r)
		log = append(log, gh.Requests()...)
		if state != "" {
			if err := writeState(state, log, gh); err != nil {
				fmt.Fprintln(os.Stderr, "fakegithub:", err)
			}
		}
	})}
	return srv, ln, gh, nil
}

func writeState(path string, log []actiontest.Request, gh *actiontest.GitHub) error {
	data, err := json.MarshalIndent(struct {
		Requests   []actiontest.Request         `json:"requests"`
		Comments   map[int][]actiontest.Comment `json:"comments"`
		Unexpected []string                     `json:"unexpected"`
	}{log, gh.AllComments(), gh.Unexpected()}, "", "  ")
	if err != nil {
		return err
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, data, 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}
