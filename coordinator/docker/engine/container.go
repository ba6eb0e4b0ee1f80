package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
)

// Info returns the daemon's system information.
func (c *Client) Info(ctx context.Context) (Info, error) {
	var out Info
	err := c.do(ctx, http.MethodGet, "/info", nil, nil, &out)
	return out, err
}

// ImageInspect returns the daemon's view of an image; a missing image is
// ErrNotFound.
func (c *Client) ImageInspect(ctx context.Context, image string) (Image, error) {
	var out Image
	name, err := segment(image)
	if err != nil {
		return out, err
	}
	err = c.do(ctx, http.MethodGet, "/images/"+name+"/json", nil, nil, &out)
	return out, err
}

// createRequest is the create call's body: the Config's fields at the top
// level, beside HostConfig.
type createRequest struct {
	*Config
	HostConfig *HostConfig `json:",omitempty"`
}

// ContainerCreate creates a container named name.
func (c *Client) ContainerCreate(ctx context.Context, cfg *Config, hc *HostConfig, name string) (CreateResponse, error) {
	var out CreateResponse
	q := url.Values{}
	if name != "" {
		q.Set("name", name)
	}
	err := c.do(ctx, http.MethodPost, "/containers/create", q, createRequest{cfg, hc}, &out)
	return out, err
}

// ContainerInspect returns the daemon's view of a container.
func (c *Client) ContainerInspect(ctx context.Context, id string) (InspectResponse, error) {
	var out InspectResponse
	name, err := segment(id)
	if err != nil {
		return out, err
	}
	err = c.do(ctx, http.MethodGet, "/containers/"+name+"/json", nil, nil, &out)
	return out, err
}

// ContainerStart starts a created container.
func (c *Client) ContainerStart(ctx context.Context, id string) error {
	return c.post(ctx, id, "/start", nil)
}

// ContainerKill sends signal (a name without SIG, or a number) to the
// container's pid 1.
func (c *Client) ContainerKill(ctx context.Context, id, signal string) error {
	return c.post(ctx, id, "/kill", url.Values{"signal": {signal}})
}

// ContainerResize sets the size of the container's terminal.
func (c *Client) ContainerResize(ctx context.Context, id string, height, width uint) error {
	q := url.Values{"h": {strconv.FormatUint(uint64(height), 10)}, "w": {strconv.FormatUint(uint64(width), 10)}}
	return c.post(ctx, id, "/resize", q)
}

func (c *Client) post(ctx context.Context, id, action string, q url.Values) error {
	name, err := segment(id)
	if err != nil {
		return err
	}
	return c.do(ctx, http.MethodPost, "/containers/"+name+action, q, nil, nil)
}

// ContainerRemove removes a container; force kills it first if it runs.
func (c *Client) ContainerRemove(ctx context.Context, id string, force bool) error {
	name, err := segment(id)
	if err != nil {
		return err
	}
	q := url.Values{}
	if force {
		q.Set("force", "1")
	}
	return c.do(ctx, http.MethodDelete, "/containers/"+name, q, nil, nil)
}

// ContainerList lists every container, running or not, that carries
// each of labels ("key" or "key=value").
func (c *Client) ContainerList(ctx context.Context, labels ...string) ([]Summary, error) {
	q := url.Values{"all": {"1"}}
	if len(labels) > 0 {
		set := map[string]bool{}
		for _, l := range labels {
			set[l] = true
		}
		f, err := json.Marshal(map[string]map[string]bool{"label": set})
		if err != nil {
			return nil, fmt.Errorf("bug: list filter does not encode: %w", err)
		}
		q.Set("filters", string(f))
	}
	var out []Summary
	err := c.do(ctx, http.MethodGet, "/containers/json", q, nil, &out)
	return out, err
}

// ContainerWait asks the daemon to report when the container meets
// condition (WaitConditionRemoved: gone). The request is registered
// before it returns, so an exit right after is not missed; the result
// arrives on one of the channels.
func (c *Client) ContainerWait(ctx context.Context, id, condition string) (<-chan WaitResponse, <-chan error) {
	res, errs := make(chan WaitResponse, 1), make(chan error, 1)
	name, err := segment(id)
	if err != nil {
		errs <- err
		return res, errs
	}
	// The daemon writes the header once the wait is registered, and the
	// body at the exit (api/server/router/container postContainersWait).
	resp, err := c.request(ctx, http.MethodPost, "/containers/"+name+"/wait", url.Values{"condition": {condition}}, nil, nil)
	if err != nil {
		errs <- err
		return res, errs
	}
	go func() {
		defer drain(resp)
		var w WaitResponse
		if err := json.NewDecoder(resp.Body).Decode(&w); err != nil {
			errs <- fmt.Errorf("waiting for container %s: %w", id, err)
			return
		}
		res <- w
	}()
	return res, errs
}
