package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
)

// buildMessage is one JSON object of the daemon's build progress stream.
type buildMessage struct {
	Stream      string `json:"stream"`
	Status      string `json:"status"`
	Error       string `json:"error"`
	ErrorDetail *struct {
		Message string `json:"message"`
	} `json:"errorDetail"`
}

// ImageBuild builds an image from buildContext, a tar stream with the
// Dockerfile at its root, and tags it tag. Its RUN steps get no network
// (networkmode none): acbox builds only from what the context holds.
// The daemon's progress is copied to progress as it comes; a failed step
// is an error with the daemon's message.
func (c *Client) ImageBuild(ctx context.Context, buildContext io.Reader, tag string, progress io.Writer) error {
	if _, err := segment(tag); err != nil {
		return err
	}
	q := url.Values{"t": {tag}, "rm": {"1"}, "forcerm": {"1"}, "networkmode": {"none"}}
	req, err := c.newRequest(ctx, http.MethodPost, "/build", q, nil)
	if err != nil {
		return err
	}
	// ContentLength 0 with a body: sent chunked, as the context streams.
	req.Body = io.NopCloser(buildContext)
	req.Header.Set("Content-Type", "application/x-tar")
	resp, err := c.send(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if err := responseError(resp); err != nil {
		return err
	}
	return copyProgress(resp.Body, progress)
}

// copyProgress writes each message's text to w and returns the first
// error the stream reports.
func copyProgress(r io.Reader, w io.Writer) error {
	dec := json.NewDecoder(r)
	for {
		var m buildMessage
		err := dec.Decode(&m)
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("build: the daemon's progress does not decode: %w", err)
		}
		if m.Error != "" || m.ErrorDetail != nil {
			msg := m.Error
			if msg == "" {
				msg = m.ErrorDetail.Message
			}
			return fmt.Errorf("build: %s", msg)
		}
		io.WriteString(w, m.Stream)
		if m.Status != "" {
			io.WriteString(w, m.Status+"\n")
		}
	}
}
