package engine

// The Engine API's JSON, reduced to the fields acbox sends or checks.
// Field names are the API's (github.com/moby/moby api/swagger.yaml); a
// field missing here is one acbox neither sets nor inspects. Every field
// the docker backend's inspection reads must be decoded here, or a
// daemon's non-zero value would go unseen: testdata/ holds a real
// Docker 20.10 inspection with each of them set, and the tests require
// every field below to be filled from it.

// Values of the API's enumerations that acbox uses.
const (
	MountTypeBind        = "bind"
	MountTypeVolume      = "volume"
	PropagationRPrivate  = "rprivate"
	RestartDisabled      = "no"
	CgroupnsPrivate      = "private"
	WaitConditionRemoved = "removed"
)

// Config is the container's portable configuration: the create request's
// top level, and "Config" in an inspection.
type Config struct {
	Hostname     string
	User         string
	Env          []string
	Entrypoint   []string
	Cmd          []string
	WorkingDir   string
	Image        string
	Tty          bool
	OpenStdin    bool
	StdinOnce    bool
	AttachStdin  bool
	AttachStdout bool
	AttachStderr bool
	Labels       map[string]string
	Healthcheck  *HealthConfig       `json:",omitempty"`
	ExposedPorts map[string]struct{} `json:",omitempty"` // "80/tcp": {}
	Volumes      map[string]struct{} `json:",omitempty"`
}

// HealthConfig is the container's health check; Test ["NONE"] turns the
// image's off.
type HealthConfig struct {
	Test []string `json:",omitempty"`
}

// HostConfig is the host-dependent configuration. The API inlines
// Resources, as Go's embedding does.
type HostConfig struct {
	Resources
	NetworkMode     string
	PortBindings    map[string][]PortBinding `json:",omitempty"`
	PublishAllPorts bool
	Privileged      bool
	CapAdd          []string
	CapDrop         []string
	SecurityOpt     []string
	MaskedPaths     []string
	ReadonlyPaths   []string
	ReadonlyRootfs  bool
	PidMode         string
	IpcMode         string
	UTSMode         string
	UsernsMode      string
	CgroupnsMode    string
	GroupAdd        []string
	VolumesFrom     []string
	Binds           []string
	VolumeDriver    string
	Links           []string
	Sysctls         map[string]string `json:",omitempty"`
	RestartPolicy   RestartPolicy
	LogConfig       LogConfig
	AutoRemove      bool
	Init            *bool             `json:",omitempty"`
	Mounts          []Mount           `json:",omitempty"`
	Tmpfs           map[string]string `json:",omitempty"`
}

// Resources are the cgroup limits and devices.
type Resources struct {
	Memory            int64
	MemorySwap        int64
	PidsLimit         *int64 `json:",omitempty"`
	OomKillDisable    *bool
	CgroupParent      string
	Devices           []DeviceMapping
	DeviceRequests    []DeviceRequest
	DeviceCgroupRules []string
}

// PortBinding is one host address a container port is published on.
type PortBinding struct {
	HostIP   string `json:"HostIp"`
	HostPort string
}

// DeviceMapping is a host device made available in the container.
type DeviceMapping struct {
	PathOnHost        string
	PathInContainer   string
	CgroupPermissions string
}

// DeviceRequest asks a device driver (GPUs) for devices.
type DeviceRequest struct {
	Driver string
	Count  int
}

// RestartPolicy says whether the daemon restarts the container.
type RestartPolicy struct {
	Name string
}

// LogConfig is the container's log driver.
type LogConfig struct {
	Type string
}

// Mount is one requested mount (HostConfig.Mounts).
type Mount struct {
	Type          string       `json:",omitempty"`
	Source        string       `json:",omitempty"`
	Target        string       `json:",omitempty"`
	ReadOnly      bool         `json:",omitempty"`
	BindOptions   *BindOptions `json:",omitempty"`
	VolumeOptions *struct{}    `json:",omitempty"` // only whether it is set matters
	TmpfsOptions  *struct{}    `json:",omitempty"`
}

// BindOptions are a bind mount's options.
type BindOptions struct {
	Propagation  string `json:",omitempty"`
	NonRecursive bool   `json:",omitempty"`
}

// CreateResponse is the daemon's answer to a create request.
type CreateResponse struct {
	ID       string `json:"Id"`
	Warnings []string
}

// InspectResponse is the daemon's view of one container.
type InspectResponse struct {
	ID              string `json:"Id"`
	State           *State
	HostConfig      *HostConfig
	Config          *Config
	Mounts          []MountPoint
	NetworkSettings *NetworkSettings
}

// State is a container's run state.
type State struct {
	Running bool
	Pid     int
}

// MountPoint is a mount as the daemon made it.
type MountPoint struct {
	Type        string `json:",omitempty"`
	Source      string
	Destination string
	RW          bool
}

// NetworkSettings is what the container's networking became.
type NetworkSettings struct {
	Ports    map[string][]PortBinding
	Networks map[string]struct{} // only the names matter
}

// Summary is one container in a list.
type Summary struct {
	ID     string `json:"Id"`
	Names  []string
	Labels map[string]string
	State  string // "created", "running", "exited", ...
}

// Info is the daemon's system information.
type Info struct {
	SecurityOptions []string
}

// Image is the daemon's view of one image.
type Image struct {
	Config *ImageConfig
}

// ImageConfig is the image's default container configuration.
type ImageConfig struct {
	ExposedPorts map[string]struct{}
	Volumes      map[string]struct{}
}

// WaitResponse is the container's exit, as the wait call reports it.
type WaitResponse struct {
	StatusCode int64
	Error      *WaitError `json:",omitempty"`
}

// WaitError is the daemon's failure to wait.
type WaitError struct {
	Message string
}
