package policy

import (
	"maps"
	"slices"
	"strconv"

	"github.com/acbox/acbox/egress"
)

// AppendPlanJSON appends p as json.Marshal writes it. A registry entry
// keeps a copy of its plan, the one large value a launch still wrote with
// encoding/json, whose reflection over the plan's dozen types was about 4 %
// of the parent's CPU. TestPlanJSONMatches and FuzzPlanJSON hold it to
// json.Marshal: a field added to a plan type needs its line here.
func AppendPlanJSON(b []byte, p *Plan) []byte {
	b = jsonStr(b, `{"backend":`, p.Backend)
	b = jsonList(b, `,"command":`, p.Command, AppendJSONString)
	b = jsonStr(b, `,"cwd":`, p.Cwd)
	b = jsonInt(b, `,"uid":`, int64(p.UID))
	b = jsonInt(b, `,"gid":`, int64(p.GID))
	b = jsonStr(b, `,"user":`, p.User)
	b = jsonStr(b, `,"home":`, p.Home)
	b = jsonStr(b, `,"hostname":`, p.Hostname)
	b = jsonList(b, `,"system":`, p.System, appendSystemJSON)
	b = jsonList(b, `,"grants":`, p.Grants, appendGrantJSON)
	b = jsonList(b, `,"mounts":`, p.Mounts, appendMountJSON)
	b = jsonList(b, `,"tmpfs":`, p.Tmpfs, appendTmpfsJSON)
	b = jsonList(b, `,"env":`, p.Env, AppendJSONString)
	b = appendNetworkJSON(append(b, `,"network":`...), p.Network)
	b = jsonBool(b, `,"tty":`, p.TTY)
	b = jsonInt(b, `,"limits":{"memory":`, p.Limits.Memory)
	b = append(jsonInt(b, `,"pids":`, int64(p.Limits.Pids)), '}')
	b = jsonBool(b, `,"best_effort":`, p.BestEffort)
	if p.Image != "" {
		b = jsonStr(b, `,"image":`, p.Image)
	}
	if len(p.Labels) > 0 {
		b = appendStringMapJSON(append(b, `,"labels":`...), p.Labels)
	}
	b = jsonBool(b, `,"delegate":`, p.Delegate)
	b = jsonInt(b, `,"depth":`, int64(p.Depth))
	if p.Parent != "" {
		b = jsonStr(b, `,"parent":`, p.Parent)
	}
	if p.Within {
		b = append(b, `,"within":true`...)
	}
	b = jsonStr(b, `,"view":`, p.View)
	b = jsonList(b, `,"masks":`, p.Masks, appendMaskJSON)
	if len(p.Views) > 0 {
		b = jsonList(b, `,"views":`, p.Views, appendViewDirJSON)
	}
	b = jsonList(b, `,"protected":`, p.Protected, appendCarveoutJSON)
	if len(p.EnclosingRepos) > 0 {
		b = jsonList(b, `,"enclosing_repos":`, p.EnclosingRepos, appendRepoJSON)
	}
	if len(p.BareRepos) > 0 {
		b = jsonList(b, `,"bare_repos":`, p.BareRepos, appendRepoJSON)
	}
	if len(p.ProtectMissing) > 0 {
		b = jsonList(b, `,"protect_missing":`, p.ProtectMissing, AppendJSONString)
	}
	if h := p.PersistedHome; h != nil {
		b = jsonStr(b, `,"persisted_home":{"name":`, h.Name)
		b = append(jsonStr(b, `,"path":`, h.Path), '}')
	}
	if len(p.AccessEnv) > 0 {
		b = jsonList(b, `,"access_env":`, p.AccessEnv, AppendJSONString)
	}
	return append(b, '}')
}

func jsonStr(b []byte, key, s string) []byte { return AppendJSONString(append(b, key...), s) }

func jsonInt(b []byte, key string, n int64) []byte {
	return strconv.AppendInt(append(b, key...), n, 10)
}

func jsonUint(b []byte, key string, n uint64) []byte {
	return strconv.AppendUint(append(b, key...), n, 10)
}

func jsonBool(b []byte, key string, v bool) []byte {
	return strconv.AppendBool(append(b, key...), v)
}

// jsonList appends key and list as a JSON array, null when list is nil
// (as encoding/json writes a nil slice).
func jsonList[T any](b []byte, key string, list []T, elem func([]byte, T) []byte) []byte {
	b = append(b, key...)
	if list == nil {
		return append(b, "null"...)
	}
	b = append(b, '[')
	for i, v := range list {
		if i > 0 {
			b = append(b, ',')
		}
		b = elem(b, v)
	}
	return append(b, ']')
}

func appendSystemJSON(b []byte, s SystemPath) []byte {
	b = jsonStr(b, `{"path":`, s.Path)
	if s.Link != "" {
		b = jsonStr(b, `,"link":`, s.Link)
	}
	return append(b, '}')
}

func appendGrantJSON(b []byte, g Grant) []byte {
	b = jsonStr(b, `{"path":`, g.Path)
	b = jsonBool(b, `,"write":`, g.Write)
	b = jsonUint(b, `,"dev":`, g.Dev)
	return append(jsonUint(b, `,"ino":`, g.Ino), '}')
}

func appendMountJSON(b []byte, m Mount) []byte {
	b = jsonStr(b, `{"source":`, m.Source)
	b = jsonStr(b, `,"target":`, m.Target)
	b = jsonBool(b, `,"readonly":`, m.Readonly)
	return append(jsonStr(b, `,"kind":`, m.Kind), '}')
}

func appendTmpfsJSON(b []byte, t Tmpfs) []byte {
	b = jsonStr(b, `{"target":`, t.Target)
	return append(jsonInt(b, `,"size":`, t.Size), '}')
}

func appendNetworkJSON(b []byte, n egress.Policy) []byte {
	b = jsonStr(b, `{"mode":`, string(n.Mode))
	b = jsonList(b, `,"allow":`, n.Allow, func(b []byte, r egress.Rule) []byte { return AppendJSONString(b, r.String()) })
	b = jsonBool(b, `,"allow_any":`, n.AllowAny)
	if len(n.ConnectPorts) > 0 {
		b = appendJSONUints(append(b, `,"connect_ports":`...), n.ConnectPorts)
	}
	if len(n.BindPorts) > 0 {
		b = appendJSONUints(append(b, `,"bind_ports":`...), n.BindPorts)
	}
	return append(b, '}')
}

func appendMaskJSON(b []byte, m Mask) []byte {
	b = jsonStr(b, `{"path":`, m.Path)
	if m.Via != "" {
		b = jsonStr(b, `,"via":`, m.Via)
	}
	b = jsonStr(b, `,"kind":`, m.Kind)
	b = jsonStr(b, `,"why":`, m.Why)
	b = jsonStr(b, `,"held":`, m.Held)
	if m.Dev != 0 {
		b = jsonUint(b, `,"dev":`, m.Dev)
	}
	if m.Ino != 0 {
		b = jsonUint(b, `,"ino":`, m.Ino)
	}
	return append(b, '}')
}

func appendViewDirJSON(b []byte, v ViewDir) []byte {
	b = jsonStr(b, `{"path":`, v.Path)
	b = jsonUint(b, `,"dev":`, v.Dev)
	b = jsonUint(b, `,"ino":`, v.Ino)
	if len(v.Hide) > 0 {
		b = jsonList(b, `,"hide":`, v.Hide, AppendJSONString)
	}
	if len(v.HideGlob) > 0 {
		b = jsonList(b, `,"hide_glob":`, v.HideGlob, AppendJSONString)
	}
	if v.HideRoot {
		b = append(b, `,"hide_root_only":true`...)
	}
	if len(v.KeepRoot) > 0 {
		b = jsonList(b, `,"keep_root_only":`, v.KeepRoot, AppendJSONString)
	}
	return append(b, '}')
}

func appendCarveoutJSON(b []byte, c Carveout) []byte {
	b = jsonStr(b, `{"path":`, c.Path)
	b = jsonStr(b, `,"grant":`, c.Grant)
	b = jsonStr(b, `,"mode":`, c.Mode)
	b = jsonStr(b, `,"kind":`, c.Kind)
	b = jsonStr(b, `,"why":`, c.Why)
	b = jsonUint(b, `,"dev":`, c.Dev)
	return append(jsonUint(b, `,"ino":`, c.Ino), '}')
}

func appendRepoJSON(b []byte, r ProtectedRepo) []byte {
	b = jsonStr(b, `{"Root":`, r.Root)
	b = jsonStr(b, `,"Grant":`, r.Grant)
	return append(jsonBool(b, `,"OwnGitDir":`, r.OwnGitDir), '}')
}

// appendStringMapJSON appends m as encoding/json writes a map: keys in
// byte order.
func appendStringMapJSON(b []byte, m map[string]string) []byte {
	b = append(b, '{')
	for i, k := range slices.Sorted(maps.Keys(m)) {
		if i > 0 {
			b = append(b, ',')
		}
		b = AppendJSONString(append(AppendJSONString(b, k), ':'), m[k])
	}
	return append(b, '}')
}
