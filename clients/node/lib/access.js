// Access as the agent-team extension's members read it (its access.ts):
// {"enforced":true,"read":[...],"write":[...],"network":{"allow":[...]}}, with
// `allow` omitted for any public destination, or {"enforced":false}; and the
// narrowing check its Main runs before launching a requested member.
import { resolve } from 'node:path';

const within = (path, root) => path === root || path.startsWith(root === '/' ? '/' : root + '/');
const inside = (path, roots) => roots.some((root) => within(path, root));
const sorted = (list) => [...new Set(list)].sort();

/** The seed's network shape from acbox's: any public destination omits allow; no network is allow []. */
function seedNetwork(net = {}) {
  const { allow_any: any, allow, mode, ...extra } = net;
  if (mode === 'host' || any || (mode === 'proxy' && allow === undefined)) return { ...extra, ...(mode ? { mode } : {}) };
  return { ...extra, ...(mode ? { mode } : {}), allow: sorted((allow ?? []).map((a) => a.toLowerCase())) };
}

/** Converts ACBOX_ACCESS (or the started event's access) to the seed's shape; extra keys are kept. */
export function seedAccess(acbox) {
  if (!acbox || acbox.enforced !== true) return { enforced: false };
  const { read = [], write = [], network, ...extra } = acbox;
  return { ...extra, enforced: true, read: sorted(read).filter((p) => !inside(p, write)), write: sorted(write), network: seedNetwork(network) };
}

/**
 * What a member launched with spec will be told, in the seed's shape, computed without acbox: relative grants resolve
 * against the spec's cwd (as contract 1 does; base when the spec has none), write implies read.
 */
export function accessFor(spec, { base = process.cwd() } = {}) {
  const root = spec.cwd ? resolve(base, spec.cwd) : base;
  const abs = (list = []) => list.map((p) => resolve(root, p));
  const net = spec.access?.network ?? {};
  const mode = net.mode ?? (net.allow !== undefined ? 'proxy' : 'none');
  const network = mode === 'none' ? { mode, allow: [] } : { mode, ...(net.allow !== undefined && mode === 'proxy' ? { allow: net.allow } : {}) };
  return seedAccess({ enforced: true, read: abs(spec.access?.read), write: abs(spec.access?.write), network: { ...network, allow_any: mode !== 'none' && net.allow === undefined } });
}

// Allowlist entries: host or *.host, optionally :port; without a port, 80 and 443 (the seed's egress.ts).
const entryPattern = /^(\*\.)?([a-z0-9-]+(?:\.[a-z0-9-]+)+)(?::(\d{1,5}))?$/;
function parseEntry(text) {
  const m = entryPattern.exec(String(text).toLowerCase());
  const port = m?.[3] === undefined ? undefined : Number(m[3]);
  if (!m || (port !== undefined && (port < 1 || port > 65535))) throw new Error(`Invalid network allow entry: ${text}`);
  return { wildcard: !!m[1], host: m[2], ports: port === undefined ? [80, 443] : [port] };
}

/** Throws unless child (seed shape) is the same as or narrower than actor; an unsandboxed actor may grant anything. */
export function assertNarrower(actor, child) {
  if (!actor || actor.enforced === false) return;
  if (!child || child.enforced === false) throw new Error('A sandboxed member cannot launch an unsandboxed member');
  const readable = [...(actor.read ?? []), ...(actor.write ?? [])];
  for (const p of child.write ?? []) if (!inside(p, actor.write ?? [])) throw new Error(`Write access to ${p} exceeds the requesting member's access`);
  for (const p of child.read ?? []) if (!inside(p, readable)) throw new Error(`Read access to ${p} exceeds the requesting member's access`);
  const parent = actor.network?.allow, asked = child.network?.allow;
  if (parent === undefined) return;
  if (asked === undefined) throw new Error('A member with restricted network access cannot launch one with public access');
  for (const text of asked) {
    const entry = parseEntry(text);
    const ok = parent.some((p) => {
      const outer = parseEntry(p);
      if (!entry.ports.every((port) => outer.ports.includes(port))) return false;
      return outer.wildcard ? entry.host.endsWith('.' + outer.host) : !entry.wildcard && entry.host === outer.host;
    });
    if (!ok) throw new Error(`Network access to ${text} exceeds the requesting member's access`);
  }
}
