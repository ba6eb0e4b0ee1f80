// CONTRACT 1: what acbox must add for issue 14. Every test here FAILS against
// an acbox that predates contract 1 (the client refuses a binary that reports
// no contract, and each test then checks the feature itself). They pass once
// the Go side lands; until then ACBOX_SKIP_CONTRACT_V1=1 skips this file.
//
// Expected of acbox (contract 1):
//  - `acbox version --json`: {"version": semver, "contract": 1, "commit", "go", "policy", ...}.
//  - spec "version": 1 accepted (absent means 1); any other value refused with status 2, field "version".
//  - a "refused" event {event, time, id?, status, field, message, remedy} on --status-fd as the last event before
//    acbox exits with 2, 124, 125, 126 or 127; status equals the exit status; field is the spec's JSON path.
//  - 127 when the command is not found in the sandbox (today 126), field "command[0]".
//  - 124 (exit scan could not check): "exited" (the member's outcome) first, then "refused" status 124.
//  - "exited" carries "exit_scan" (the report's exit_scan) and, on docker too, "signal" when the member was killed.
//  - ACBOX_ACCESS in the seed's shape for its keys: network.allow omitted for any public destination, [] for none,
//    no allow_any; spec "access_env": ["AC_TEAMS_ACCESS"] exports the same JSON under more names (a name that is not
//    [A-Z_][A-Z0-9_]* or that acbox sets itself is refused, 2, field "access_env[i]").
//  - relative grants (and a relative cwd's grants) resolve against the spec's cwd when it names one.
//  - spec "private": [...]: no grant may be, contain or lie inside one (125, field "access.read[i]"/"access.write[i]"),
//    while runtime mounts from inside one stay allowed.
//  - `acbox run --within ID` / `acbox plan --within ID` / spec "within": launch only if narrower than live sandbox
//    ID (125 naming the wider field otherwise; 125 field "within" if ID is not live), on both backends; the child's ps
//    entry has "parent": ID and it is stopped with ID.
//  - `acbox status --json`: every unavailable backend has "remedy" apart from "reason".
//  - "started" is the first event of a launch: no egress event of the member before it (today the member can reach
//    the proxy before acbox writes started).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { NotFoundError, RefusedError, UncheckedError, UsageError, CannotSandboxError } from '../index.js';
import { backendsFor, bin, chownAll, clientFor, envFor, scratch, uniq, users } from '../fixtures/env.mjs';

const skip = (!bin && 'ACBOX_BIN is not set') || (process.env.ACBOX_SKIP_CONTRACT_V1 === '1' && 'ACBOX_SKIP_CONTRACT_V1=1');
const collect = (stream) => new Promise((resolve) => { let s = ''; stream.setEncoding('utf8').on('data', (d) => { s += d; }).on('end', () => resolve(s)); });
const sh = (script) => ['sh', '-c', script];
const fromEvent = (Class, status, field) => (e) => {
  assert.ok(e instanceof Class, `want ${Class.name}, got ${e?.name}: ${e?.message}`);
  assert.equal(e.status, status);
  assert.equal(e.source, 'event', 'the refusal came as a refused event, not parsed from stderr');
  if (field !== undefined) assert.equal(e.field, field);
  assert.ok(e.message);
  return true;
};

function matrix(name, body) {
  for (const u of users()) {
    test(`contract 1: ${name} as ${u.name}`, { skip }, async (t) => {
      for (const b of await backendsFor(u.ids)) {
        await t.test(b.backend, { skip: b.skip }, async (t) => body(t, { ids: u.ids, backend: b.backend, c: clientFor(u.ids, { strict: true, backend: b.backend }) }));
      }
    });
  }
}

test('contract 1: version --json reports a semantic version and the contract', { skip }, async () => {
  const v = JSON.parse(execFileSync(bin, ['version', '--json'], { encoding: 'utf8' }));
  assert.match(v.version, /^v?\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?(?:\+[0-9A-Za-z.-]+)?$/);
  assert.equal(v.contract, 1);
  assert.equal(typeof v.commit, 'string');
  assert.equal(typeof v.go, 'string');
  assert.equal(typeof v.policy, 'object');
  assert.match(v.policy_digest, /^[0-9a-f]{64}$/);
  assert.equal((await clientFor(null, { strict: true }).ready()).contract, 1);
});

test('contract 1: the refused event on the status fd, raw', { skip }, async () => {
  const child = spawn(bin, ['run', '--spec', '-', '--status-fd', '3'], { stdio: ['pipe', 'ignore', 'pipe', 'pipe'], cwd: '/' });
  child.stdin.end(JSON.stringify({ command: ['true'], access: { read: ['/'] } }) + '\n');
  const [events, , code] = await Promise.all([collect(child.stdio[3]), collect(child.stderr), new Promise((r) => child.on('exit', r))]);
  assert.equal(code, 125);
  const lines = events.trim().split('\n').map((l) => JSON.parse(l));
  assert.equal(lines.length, 1);
  const ev = lines[0];
  assert.deepEqual(Object.keys(ev).filter((k) => k !== 'id').sort(), ['event', 'field', 'message', 'remedy', 'status', 'time']);
  assert.deepEqual([ev.event, ev.status, ev.field], ['refused', 125, 'access.read[0]']);
  assert.match(ev.message, /whole of \//);
  assert.match(ev.remedy, /narrower/);
});

matrix('every refusal class comes as a refused event with its status', async (t, { ids, backend, c }) => {
  await assert.rejects(c.launch({ backend, command: ['true'], bogus: 1 }), fromEvent(UsageError, 2, 'bogus'));
  await assert.rejects(c.launch({ backend, command: ['true'], version: 2 }), fromEvent(UsageError, 2, 'version'));
  await assert.rejects(c.launch({ backend, command: ['true'], access: { read: ['/'] } }), fromEvent(RefusedError, 125, 'access.read[0]'));
  await assert.rejects(c.launch({ backend: 'docker', image: 'acbox-client-missing:0', command: ['true'] }), fromEvent(CannotSandboxError, 126));
  await assert.rejects(c.launch({ backend, command: ['acbox-no-such-command'] }), fromEvent(NotFoundError, 127, 'command[0]'));
  const w = scratch(t, ids, '/var/tmp');
  const sb = await c.launch({ backend, command: sh('i=0; while [ $i -lt 1005 ]; do mkdir d && cd d || exit 9; i=$((i+1)); done'), cwd: w, access: { write: [w] } }, { stdio: ['ignore', 'ignore', 'pipe'] });
  collect(sb.stderr);
  await assert.rejects(sb.exit, (e) => fromEvent(UncheckedError, 124)(e) && e.outcome?.code === 0 && e.exitScan?.unchecked?.length === 1);
  const kinds = [];
  for await (const ev of sb) kinds.push(ev.event);
  assert.deepEqual(kinds, ['started', 'exited', 'refused']);
});

matrix('spec version 1, exit scan and signal in the exited event', async (t, { ids, backend, c }) => {
  const w = scratch(t, ids);
  assert.equal((await c.plan({ version: 1, backend, command: ['true'] })).backend, backend);
  const sb = await c.launch({ version: 1, backend, command: ['true'], cwd: w, access: { write: [w] } }, { stdio: 'ignore' });
  const out = await sb.exit;
  assert.deepEqual(out.exitScan?.unchecked, []);
  const killed = await (await c.launch({ backend, command: sh('kill -TERM $$') }, { stdio: 'ignore' })).exit;
  assert.deepEqual([killed.code, killed.signal], [143, 15]);
});

matrix('access_env: the member reads AC_TEAMS_ACCESS in the seed shape', async (t, { ids, backend, c }) => {
  const dir = scratch(t, ids);
  for (const d of ['docs', 'src']) { mkdirSync(join(dir, d)); chownAll(join(dir, d), ids); }
  const print = sh('printf "%s\\n%s\\n" "$AC_TEAMS_ACCESS" "$ACBOX_ACCESS"');
  const read = async (network) => {
    const spec = { backend, command: print, cwd: join(dir, 'src'), access_env: ['AC_TEAMS_ACCESS'], access: { read: [join(dir, 'docs')], write: [join(dir, 'src')], network } };
    const sb = await c.launch(spec, { stdio: ['ignore', 'pipe', 'inherit'] });
    const [teams, acbox] = (await collect(sb.stdout)).trim().split('\n').map((l) => JSON.parse(l));
    await sb.exit;
    assert.deepEqual(teams, acbox, 'the same JSON under both names');
    return teams;
  };
  const seed = (a) => ({ enforced: a.enforced, read: a.read, write: a.write, network: 'allow' in a.network ? { allow: a.network.allow } : {} });
  const base = { enforced: true, read: [join(dir, 'docs')], write: [join(dir, 'src')] };
  assert.deepEqual(seed(await read({ allow: ['model.invalid'] })), { ...base, network: { allow: ['model.invalid'] } });
  const any = await read({ mode: 'proxy' });
  assert.deepEqual(seed(any), { ...base, network: {} }, 'allow omitted for any public destination');
  assert.ok(!('allow_any' in any.network));
  assert.deepEqual(seed(await read({ mode: 'none' })), { ...base, network: { allow: [] } });
  await assert.rejects(c.launch({ backend, command: ['true'], access_env: ['1BAD'] }), fromEvent(UsageError, 2, 'access_env[0]'));
  await assert.rejects(c.launch({ backend, command: ['true'], access_env: ['PATH'] }), fromEvent(UsageError, 2, 'access_env[0]'));
});

matrix('started comes before the member\'s first egress event', async (t, { ids, backend, c }) => {
  for (let i = 0; i < 5; i++) {
    const sb = await c.launch({ backend, command: sh('busybox wget -q -O- http://denied.invalid/ >/dev/null 2>&1; true'), access: { network: { allow: ['model.invalid'] } } }, { stdio: 'ignore' });
    await sb.exit;
    const kinds = [];
    for await (const ev of sb) kinds.push(ev.event);
    assert.deepEqual(kinds, ['started', 'egress', 'exited']);
  }
});

matrix('relative grants resolve against the spec cwd', async (t, { ids, backend, c }) => {
  const dir = scratch(t, ids);
  mkdirSync(join(dir, 'docs'));
  const sb = await c.launch({ backend, command: ['true'], cwd: dir, access: { read: ['docs'], write: ['.'] } }, { stdio: 'ignore' });
  assert.deepEqual([sb.access.read, sb.access.write], [[join(dir, 'docs')], [dir]]);
  assert.equal((await sb.exit).code, 0);
});

matrix('private roots refuse grants in, around and of them, and allow runtime mounts from inside', async (t, { ids, backend, c }) => {
  const dir = scratch(t, ids);
  const priv = join(dir, 'agent');
  mkdirSync(join(priv, 'npm'), { recursive: true });
  mkdirSync(join(priv, 'sessions'));
  writeFileSync(join(priv, 'npm', 'pkg.txt'), 'runtime\n');
  const spec = (access, extra = {}) => ({ backend, command: ['true'], private: [priv], access, ...extra });
  await assert.rejects(c.launch(spec({ read: [join(priv, 'sessions')] })), fromEvent(RefusedError, 125, 'access.read[0]'));
  await assert.rejects(c.launch(spec({ write: [dir] })), fromEvent(RefusedError, 125, 'access.write[0]'));
  await assert.rejects(c.launch(spec({ read: [priv] })), fromEvent(RefusedError, 125, 'access.read[0]'));
  const sb = await c.launch({ ...spec({}), command: ['cat', join(priv, 'npm', 'pkg.txt')], mounts: [{ source: join(priv, 'npm') }] }, { stdio: ['ignore', 'pipe', 'inherit'] });
  assert.equal(await collect(sb.stdout), 'runtime\n');
  assert.equal((await sb.exit).code, 0);
});

matrix('--within: a wider child refused, a narrower one run, children stopped with their requester', async (t, { ids, backend, c }) => {
  const dir = scratch(t, ids);
  for (const d of ['w', 'other']) { mkdirSync(join(dir, d)); chownAll(join(dir, d), ids); }
  const labels = { suite: uniq() };
  const a = await c.launch({ backend, command: sh('sleep 120'), cwd: dir, access: { read: [dir], write: [join(dir, 'w')] }, labels }, { stdio: 'ignore' });
  t.after(() => a.stop({ grace: 1000 }).catch(() => {}));
  // No cwd: the requester's dir is in neither of the child's grants, and a cwd outside every grant is refused
  // (by acbox and the seed alike) before narrowing is judged; the default cwd is then the private home.
  const narrow = { backend, command: ['true'], access: { read: [join(dir, 'other')], write: [join(dir, 'w')] } };
  const wide = { ...narrow, access: { write: [join(dir, 'other')] } };
  await assert.rejects(c.plan(wide, { within: a.id }), (e) => e instanceof RefusedError && e.status === 125 && e.field === 'access.write[0]');
  await assert.rejects(c.launch(wide, { within: a.id }), fromEvent(RefusedError, 125, 'access.write[0]'));
  await assert.rejects(c.launch({ ...wide, within: a.id }), fromEvent(RefusedError, 125, 'access.write[0]'));
  await assert.rejects(c.launch({ ...narrow, access: { ...narrow.access, network: { mode: 'proxy' } } }, { within: a.id }), fromEvent(RefusedError, 125));
  await assert.rejects(c.launch(narrow, { within: 'nosuchsandbox' }), fromEvent(RefusedError, 125, 'within'));
  await c.plan(narrow, { within: a.id });
  assert.equal((await (await c.launch(narrow, { within: a.id, stdio: 'ignore' })).exit).code, 0);
  assert.equal((await (await c.launch({ ...narrow, within: a.id }, { stdio: 'ignore' })).exit).code, 0);
  const child = await c.launch({ ...narrow, command: sh('sleep 120'), labels }, { within: a.id, stdio: 'ignore' });
  const entry = (await c.ps({ labels })).find((e) => e.id === child.id);
  assert.equal(entry?.parent, a.id);
  await c.stop(a.id, { grace: 1000 });
  const end = await child.exit.catch((e) => e);
  assert.ok(end.code === 143 || end.status === null, `the child ended with its requester: ${JSON.stringify(end)}`);
  assert.deepEqual(await c.ps({ labels }), []);
});

test('contract 1: status --json gives the remedy apart from the reason', { skip }, async (t) => {
  let checked = 0;
  for (const u of users()) {
    const raw = JSON.parse(execFileSync(bin, ['status', '--json'], { encoding: 'utf8', cwd: '/', ...(u.ids ? { uid: u.ids.uid, gid: u.ids.gid, env: envFor(u.ids) } : {}) }));
    for (const b of raw.filter((b) => !b.available)) {
      assert.equal(typeof b.remedy, 'string', `${b.backend} as ${u.name}`);
      assert.ok(b.remedy && !b.reason.includes(b.remedy), `${b.backend} as ${u.name}: remedy apart from reason`);
      checked++;
    }
  }
  if (!checked) t.skip('every backend is available here');
  await clientFor(null, { strict: true }).ready();
});
