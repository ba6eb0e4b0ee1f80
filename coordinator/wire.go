package coordinator

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"time"

	"golang.org/x/sys/unix"

	"github.com/acbox/acbox/coordinator/exitscan"
	"github.com/acbox/acbox/coordinator/policy"
	"github.com/acbox/acbox/coordinator/sys"
)

// The nested-launch wire protocol, on a Unix stream socket:
//
//	client -> broker: 4-byte big-endian length, then that many bytes of
//	                  JSON {"spec": ...}, the first segment carrying the
//	                  client's stdin, stdout and stderr (SCM_RIGHTS)
//	                  then JSON lines {"signal": N}, one for each signal
//	                  the client caught (wire_signals.go)
//	broker -> client: JSON lines: events as on --status-fd, then one
//	                  {"exit": N} or {"error": "...", "code": N}
type nestedRequest struct {
	Spec   policy.Spec `json:"spec"`
	Report bool        `json:"report,omitempty"` // send the enforcement report and exit scan back
	// after is what the broker read past the request: the start of the
	// client's signal lines.
	after []byte
}

type nestedReply struct {
	Event *Event `json:"event,omitempty"`
	Exit  *int   `json:"exit,omitempty"`
	Error string `json:"error,omitempty"`
	Code  int    `json:"code,omitempty"`
	// Field and Remedy come with Error: the refused spec field and the
	// next step (see policy.Field, policy.Remedy).
	Field  string `json:"field,omitempty"`
	Remedy string `json:"remedy,omitempty"`
	// Report and ExitScan come just before Exit when the request asked.
	// The broker sends its Result.Scan; the client passes the JSON on.
	Report   *policy.Report     `json:"report,omitempty"`
	ExitScan *exitscan.ExitScan `json:"exit_scan,omitempty"`
}

func sendRequest(c *net.UnixConn, req nestedRequest, files []*os.File) error {
	body, err := json.Marshal(req)
	if err != nil {
		return err
	}
	return sendRaw(c, body, files)
}

// sendRaw sends one request body, length first, with files attached.
func sendRaw(c *net.UnixConn, body []byte, files []*os.File) error {
	msg := binary.BigEndian.AppendUint32(nil, uint32(len(body)))
	msg = append(msg, body...)
	fds := make([]int, len(files))
	for i, f := range files {
		fds[i] = int(f.Fd())
	}
	_, _, err := c.WriteMsgUnix(msg, unix.UnixRights(fds...), nil)
	return err
}

// Request deadlines: a client sends its request at once, so a header that
// does not arrive, or a body that stops short of the length the header
// promised, is a member holding a broker goroutine (and, before end closed
// open requests, the whole launcher); the request is refused instead.
var (
	headerWait = 10 * time.Second // from the connection to the header
	bodyWait   = 5 * time.Second  // from the header to the whole body
)

// recvRequest reads one request and the descriptors sent with it.
func recvRequest(c *net.UnixConn) (nestedRequest, []*os.File, error) {
	var req nestedRequest
	buf := make([]byte, 64<<10)
	oob := make([]byte, unix.CmsgSpace(3*4))
	c.SetReadDeadline(time.Now().Add(headerWait))
	defer c.SetReadDeadline(time.Time{})
	n, oobn, _, _, err := c.ReadMsgUnix(buf, oob)
	if err != nil {
		return req, nil, fmt.Errorf("%w: nested launch: no request within %v: %v", policy.ErrInvalid, headerWait, errText(err))
	}
	files, err := parseRights(oob[:oobn])
	if err != nil || n < 4 {
		return req, files, fmt.Errorf("%w: nested launch: malformed request", policy.ErrInvalid)
	}
	size := int(binary.BigEndian.Uint32(buf[:4]))
	if size > policy.MaxSpecBytes {
		return req, files, fmt.Errorf("%w: nested launch: spec larger than %d bytes", policy.ErrInvalid, policy.MaxSpecBytes)
	}
	body := append([]byte{}, buf[4:n]...)
	c.SetReadDeadline(time.Now().Add(bodyWait))
	for len(body) < size {
		m, err := c.Read(buf)
		if err != nil {
			return req, files, fmt.Errorf("%w: nested launch: the header promised %d bytes and %d came within %v (%v); send the request whole", policy.ErrInvalid, size, len(body), bodyWait, errText(err))
		}
		body = append(body, buf[:m]...)
	}
	req, err = decodeRequest(body[:size])
	req.after = body[size:]
	return req, files, err
}

// decodeRequest reads a request as strictly as `--spec` reads a spec: an
// unknown, repeated or mistyped field anywhere is refused with its JSON
// path named, never dropped (a member may speak this protocol directly,
// and a dropped field is a request silently changed).
func decodeRequest(body []byte) (nestedRequest, error) {
	var raw struct {
		Spec   json.RawMessage `json:"spec"`
		Report bool            `json:"report"`
	}
	if err := policy.DecodeStrict(body, &raw); err != nil {
		return nestedRequest{}, fmt.Errorf("%w: nested launch: request: %w; send only spec and report", policy.ErrInvalid, err)
	}
	if raw.Spec == nil {
		return nestedRequest{}, fmt.Errorf("%w: nested launch: the request has no spec", policy.ErrInvalid)
	}
	spec, err := policy.ParseSpec(bytes.NewReader(raw.Spec))
	if err != nil {
		return nestedRequest{}, fmt.Errorf("nested launch: %w", err)
	}
	return nestedRequest{Spec: spec, Report: raw.Report}, nil
}

func parseRights(oob []byte) ([]*os.File, error) {
	msgs, err := unix.ParseSocketControlMessage(oob)
	if err != nil {
		return nil, err
	}
	var files []*os.File
	for i := range msgs {
		fds, err := unix.ParseUnixRights(&msgs[i])
		if err != nil {
			return files, err
		}
		for _, fd := range fds {
			files = append(files, os.NewFile(uintptr(fd), "nested"))
			if err := sys.CloseOnExec(fd); err != nil {
				return files, err
			}
		}
	}
	if len(files) != 3 {
		return files, errors.New("nested launch: want stdin, stdout and stderr")
	}
	return files, nil
}

// errText is an error's text without Go's path wrapping.
func errText(err error) string {
	if pe, ok := err.(*os.PathError); ok {
		err = pe.Err
	}
	return err.Error()
}
