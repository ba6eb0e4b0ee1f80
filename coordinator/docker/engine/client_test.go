package engine

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// daemon is a fake Engine API on a Unix socket in a temporary directory.
// It records each request's method, path and query, and answers with the
// handler the test gives.
type daemon struct {
	*httptest.Server
	socket string
	seen   chan string // "METHOD /path?query"
}

func newDaemon(t *testing.T, apiVersion string, h http.HandlerFunc) *daemon {
	t.Helper()
	d := &daemon{socket: filepath.Join(t.TempDir(), "docker.sock"), seen: make(chan string, 64)}
	ln, err := net.Listen("unix", d.socket)
	if err != nil {
		t.Fatal(err)
	}
	d.Server = httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		d.seen <- r.Method + " " + r.URL.RequestURI()
		if r.URL.Path == "/_ping" {
			if apiVersion != "" {
				w.Header().Set("Api-Version", apiVersion)
			}
			io.WriteString(w, "OK")
			return
		}
		h(w, r)
	}))
	d.Listener = ln
	d.Start()
	t.Cleanup(d.Close)
	return d
}

func (d *daemon) client(t *testing.T, version string) *Client {
	t.Helper()
	c, err := New("unix://"+d.socket, version)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// last is the most recent request the daemon saw.
func (d *daemon) last(t *testing.T) string {
	t.Helper()
	var s string
	for {
		select {
		case s = <-d.seen:
		default:
			return s
		}
	}
}

func answer(status int, body string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		io.WriteString(w, body)
	}
}

func TestHostFromEnv(t *testing.T) {
	cases := []struct {
		host, version string
		want          error // nil: accepted
		wantText      string
	}{
		{"", "", nil, ""},
		{"unix:///run/docker.sock", "", nil, ""},
		{"unix:///run/docker.sock", "1.41", nil, ""},
		{"unix:///run/docker.sock", "v1.41", nil, ""},
		{"tcp://127.0.0.1:2375", "", ErrNotLocal, "not a local Unix socket"},
		{"ssh://user@host", "", ErrNotLocal, "not a local Unix socket"},
		{"/var/run/docker.sock", "", nil, "not a daemon address"},
		{"unix://docker.sock", "", nil, "not absolute"},
		{"unix:///run/docker.sock", "1.41/../../containers", nil, "not an API version"},
		{"unix:///run/docker.sock", "latest", nil, "not an API version"},
	}
	for _, c := range cases {
		t.Setenv("DOCKER_HOST", c.host)
		t.Setenv("DOCKER_API_VERSION", c.version)
		cl, err := FromEnv()
		switch {
		case c.wantText == "" && err != nil:
			t.Errorf("DOCKER_HOST=%q DOCKER_API_VERSION=%q: %v", c.host, c.version, err)
		case c.wantText != "" && (err == nil || !strings.Contains(err.Error(), c.wantText)):
			t.Errorf("DOCKER_HOST=%q DOCKER_API_VERSION=%q: %v; want an error saying %q", c.host, c.version, err, c.wantText)
		case c.want != nil && !errors.Is(err, c.want):
			t.Errorf("DOCKER_HOST=%q: %v; want %v", c.host, err, c.want)
		case err == nil && c.host == "" && cl.Host() != DefaultHost:
			t.Errorf("no DOCKER_HOST: host %s; want %s", cl.Host(), DefaultHost)
		}
	}
}

// TestVersionNegotiation: the client speaks the older of MaxVersion and
// the daemon's version, 1.24 with a daemon that names none, and a pinned
// version whatever the daemon says.
func TestVersionNegotiation(t *testing.T) {
	cases := []struct{ daemon, pinned, want string }{
		{"1.41", "", "1.41"},
		{"1.9", "", "1.9"},
		{"1.60", "", MaxVersion},
		{"", "", fallbackVersion},
		{"1.41", "1.40", "1.40"},
		{"1.41", "1.45", "1.45"},
	}
	for _, c := range cases {
		d := newDaemon(t, c.daemon, answer(200, `{"SecurityOptions":["name=seccomp,profile=default"]}`))
		cl := d.client(t, c.pinned)
		if err := cl.Ping(context.Background()); err != nil {
			t.Fatal(err)
		}
		info, err := cl.Info(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if got := d.last(t); got != "GET /v"+c.want+"/info" || len(info.SecurityOptions) != 1 {
			t.Errorf("daemon %q pinned %q: request %q, info %+v; want /v%s/info", c.daemon, c.pinned, got, info, c.want)
		}
	}
}

func TestLess(t *testing.T) {
	for _, c := range []struct {
		a, b string
		less bool
	}{{"1.9", "1.41", true}, {"1.41", "1.41", false}, {"1.41", "1.9", false}, {"1", "1.1", true}, {"2.0", "1.99", false}} {
		if Less(c.a, c.b) != c.less {
			t.Errorf("Less(%s, %s) = %v", c.a, c.b, !c.less)
		}
	}
}

// TestEndpoints: each call's method, path and query, as the Engine API
// documents them.
func TestEndpoints(t *testing.T) {
	d := newDaemon(t, "1.41", answer(200, `{}`))
	c := d.client(t, "")
	ctx := context.Background()
	c.Ping(ctx)
	d.last(t)
	calls := []struct {
		call func() error
		want string
	}{
		{func() error { _, err := c.ImageInspect(ctx, "library/busybox:1"); return err }, "GET /v1.41/images/library/busybox:1/json"},
		{func() error { _, err := c.ContainerInspect(ctx, "acbox-1"); return err }, "GET /v1.41/containers/acbox-1/json"},
		{func() error { return c.ContainerStart(ctx, "acbox-1") }, "POST /v1.41/containers/acbox-1/start"},
		{func() error { return c.ContainerKill(ctx, "acbox-1", "TERM") }, "POST /v1.41/containers/acbox-1/kill?signal=TERM"},
		{func() error { return c.ContainerResize(ctx, "acbox-1", 24, 80) }, "POST /v1.41/containers/acbox-1/resize?h=24&w=80"},
		{func() error { return c.ContainerRemove(ctx, "acbox-1", true) }, "DELETE /v1.41/containers/acbox-1?force=1"},
		{func() error { _, err := c.ContainerCreate(ctx, &Config{}, &HostConfig{}, "acbox-1"); return err }, "POST /v1.41/containers/create?name=acbox-1"},
	}
	for _, k := range calls {
		if err := k.call(); err != nil {
			t.Errorf("%s: %v", k.want, err)
		}
		if got := d.last(t); got != k.want {
			t.Errorf("request %q; want %q", got, k.want)
		}
	}
}

func TestContainerList(t *testing.T) {
	d := newDaemon(t, "1.41", answer(200, `[{"Id":"0123456789abcdef","Names":["/acbox-x"],"Labels":{"acbox.id":"x"},"State":"running"}]`))
	c := d.client(t, "")
	list, err := c.ContainerList(context.Background(), "acbox.owner.pid", "acbox.id=x")
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 1 || list[0].Labels["acbox.id"] != "x" || list[0].State != "running" || list[0].Names[0] != "/acbox-x" {
		t.Errorf("list %+v", list)
	}
	req := d.last(t)
	_, q, _ := strings.Cut(req, "?")
	vals, _ := url.ParseQuery(q)
	var f map[string]map[string]bool
	if err := json.Unmarshal([]byte(vals.Get("filters")), &f); err != nil || !f["label"]["acbox.owner.pid"] || !f["label"]["acbox.id=x"] || vals.Get("all") != "1" {
		t.Errorf("list request %q: filters %v", req, f)
	}
}

// TestCreateBody: the Config's fields sit at the top level of the
// request, beside HostConfig, as the API wants them.
func TestCreateBody(t *testing.T) {
	var body map[string]any
	d := newDaemon(t, "1.41", func(w http.ResponseWriter, r *http.Request) {
		json.NewDecoder(r.Body).Decode(&body)
		answer(201, `{"Id":"abc","Warnings":[]}`)(w, r)
	})
	c := d.client(t, "")
	pids := int64(64)
	r, err := c.ContainerCreate(context.Background(), &Config{Image: "img", User: "1000:1000"},
		&HostConfig{NetworkMode: "none", CapDrop: []string{"ALL"}, Resources: Resources{PidsLimit: &pids, Memory: 1 << 20}}, "n")
	if err != nil || r.ID != "abc" {
		t.Fatalf("create: %+v %v", r, err)
	}
	hc, _ := body["HostConfig"].(map[string]any)
	if body["Image"] != "img" || body["User"] != "1000:1000" || hc["NetworkMode"] != "none" || hc["PidsLimit"] != 64.0 || hc["Memory"] != float64(1<<20) {
		t.Errorf("create body %v", body)
	}
}

// TestDaemonErrors: the daemon's refusals keep its message and match
// ErrNotFound and ErrConflict by status.
func TestDaemonErrors(t *testing.T) {
	cases := []struct {
		status int
		body   string
		is     error
		text   string
	}{
		{404, `{"message":"No such container: acbox-1"}`, ErrNotFound, "Error response from daemon: No such container: acbox-1"},
		{409, `{"message":"removal of container acbox-1 is already in progress"}`, ErrConflict, "already in progress"},
		{500, `not json`, nil, "Error response from daemon: not json"},
		{400, ``, nil, "status 400 Bad Request and no message"},
	}
	for _, k := range cases {
		d := newDaemon(t, "1.41", answer(k.status, k.body))
		_, err := d.client(t, "").ContainerInspect(context.Background(), "acbox-1")
		var e *Error
		if !errors.As(err, &e) || e.Status != k.status || !strings.Contains(err.Error(), k.text) {
			t.Errorf("%d %s: %v; want an Error saying %q", k.status, k.body, err, k.text)
		}
		if k.is != nil && !errors.Is(err, k.is) {
			t.Errorf("%d: %v is not %v", k.status, err, k.is)
		}
		if errors.Is(err, ErrNotFound) != (k.status == 404) || errors.Is(err, ErrConflict) != (k.status == 409) {
			t.Errorf("%d: matches the wrong sentinel", k.status)
		}
	}
}

// TestConnectErrors: no socket, and a socket nobody listens on, are
// ErrConnect with the errno kept for errors.Is.
func TestConnectErrors(t *testing.T) {
	dir := t.TempDir()
	missing := filepath.Join(dir, "missing.sock")
	dead := filepath.Join(dir, "dead.sock")
	ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: dead, Net: "unix"})
	if err != nil {
		t.Fatal(err)
	}
	ln.SetUnlinkOnClose(false)
	ln.Close()
	for sock, errno := range map[string]syscall.Errno{missing: syscall.ENOENT, dead: syscall.ECONNREFUSED} {
		c, err := New("unix://"+sock, "")
		if err != nil {
			t.Fatal(err)
		}
		err = c.Ping(context.Background())
		if !errors.Is(err, ErrConnect) || !errors.Is(err, errno) || !strings.Contains(err.Error(), sock) {
			t.Errorf("%s: %v; want ErrConnect wrapping %v and naming the socket", sock, err, errno)
		}
		if _, err := c.ContainerAttach(context.Background(), "x"); !errors.Is(err, ErrConnect) || !errors.Is(err, errno) {
			t.Errorf("attach to %s: %v; want ErrConnect wrapping %v", sock, err, errno)
		}
	}
}

// TestNamesStayInTheirEndpoint: a name with a "." or ".." element would
// reach another endpoint; it is refused before any request.
func TestNamesStayInTheirEndpoint(t *testing.T) {
	d := newDaemon(t, "1.41", answer(200, `{}`))
	c := d.client(t, "")
	for _, name := range []string{"", ".", "..", "../containers/x", "a/../../b", "x\x00y"} {
		if _, err := c.ImageInspect(context.Background(), name); err == nil || !strings.Contains(err.Error(), "not a container or image name") {
			t.Errorf("image %q: %v", name, err)
		}
		if err := c.ContainerRemove(context.Background(), name, true); err == nil {
			t.Errorf("remove %q accepted", name)
		}
	}
	if got := d.last(t); got != "" {
		t.Errorf("a refused name reached the daemon: %q", got)
	}
}

// TestWaitRegisteredBeforeReturn: ContainerWait returns only once the
// daemon has the wait (its header is sent), and the exit arrives later.
func TestWaitRegisteredBeforeReturn(t *testing.T) {
	registered, exit := make(chan struct{}), make(chan struct{})
	d := newDaemon(t, "1.41", func(w http.ResponseWriter, r *http.Request) {
		close(registered) // before the header: the client cannot see one without this
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(200)
		w.(http.Flusher).Flush()
		<-exit
		io.WriteString(w, `{"StatusCode":3,"Error":null}`)
	})
	var once sync.Once
	end := func() { once.Do(func() { close(exit) }) }
	t.Cleanup(end) // runs before the daemon's Close, which waits for the handler
	c := d.client(t, "")
	codes, errs := c.ContainerWait(context.Background(), "acbox-1", WaitConditionRemoved)
	select {
	case <-registered:
	default:
		t.Fatal("ContainerWait returned before the daemon registered the wait")
	}
	if got := d.last(t); got != "POST /v1.51/containers/acbox-1/wait?condition=removed" {
		t.Errorf("wait request %q", got)
	}
	select {
	case r := <-codes:
		t.Fatalf("exit %+v before the container ended", r)
	case <-time.After(50 * time.Millisecond):
	}
	end()
	select {
	case r := <-codes:
		if r.StatusCode != 3 || r.Error != nil {
			t.Errorf("exit %+v; want 3", r)
		}
	case err := <-errs:
		t.Fatal(err)
	case <-time.After(10 * time.Second):
		t.Fatal("no exit")
	}
}

func TestWaitRefused(t *testing.T) {
	d := newDaemon(t, "1.41", answer(404, `{"message":"No such container: acbox-1"}`))
	_, errs := d.client(t, "").ContainerWait(context.Background(), "acbox-1", WaitConditionRemoved)
	if err := <-errs; !errors.Is(err, ErrNotFound) {
		t.Errorf("wait on a missing container: %v", err)
	}
}

// TestImageBuild: the context goes to POST /build as a tar with the tag,
// no network for RUN steps; progress is copied; a failed step is an error.
func TestImageBuild(t *testing.T) {
	var got string
	d := newDaemon(t, "1.41", func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		got = r.Header.Get("Content-Type") + " " + string(b)
		if strings.Contains(string(b), "FAIL") {
			io.WriteString(w, `{"stream":"Step 1/1 : RUN false\n"}`+"\n"+`{"errorDetail":{"message":"returned a non-zero code: 1"},"error":"returned a non-zero code: 1"}`)
			return
		}
		io.WriteString(w, `{"stream":"Step 1/2 : FROM scratch\n"}`+"\n"+`{"aux":{"ID":"sha256:1"}}{"stream":"Successfully tagged x:1\n"}`)
	})
	c := d.client(t, "")
	if err := c.Ping(context.Background()); err != nil {
		t.Fatal(err)
	}
	var progress strings.Builder
	if err := c.ImageBuild(context.Background(), strings.NewReader("TAR"), "x:1", &progress); err != nil {
		t.Fatal(err)
	}
	if req := d.last(t); req != "POST /v1.41/build?forcerm=1&networkmode=none&rm=1&t=x%3A1" {
		t.Errorf("request %s", req)
	}
	if got != "application/x-tar TAR" || progress.String() != "Step 1/2 : FROM scratch\nSuccessfully tagged x:1\n" {
		t.Errorf("body %q, progress %q", got, progress.String())
	}
	err := c.ImageBuild(context.Background(), strings.NewReader("FAIL"), "x:1", io.Discard)
	if err == nil || !strings.Contains(err.Error(), "non-zero code: 1") {
		t.Errorf("a failed step: %v", err)
	}
	if err := c.ImageBuild(context.Background(), strings.NewReader(""), "../x", io.Discard); err == nil {
		t.Error("a tag with .. was sent")
	}
}
