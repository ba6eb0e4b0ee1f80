// Real sandboxes through the client, the way the agent-team extension uses
// acbox (this replaces tests/contract/contract.test.mjs): spec on stdin,
// events on fd 3, JSON lines with the member over stdio, signals relayed,
// refusals as typed errors, orphans cleaned up by labels. Runs when
// ACBOX_BIN is set, as root and as ACBOX_TEST_USER, on native and (when
// available, or ACBOX_REQUIRE_DOCKER=1) docker; docker as ACBOX_TEST_USER
// runs with the docker group as a supplementary group (fixtures/env.mjs). These pass with an acbox that
// predates contract 1 (acceptPreContract); contract-v1.test.mjs holds what
// contract 1 adds.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { copyFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CannotSandboxError, RefusedError, UncheckedError, UsageError, accessFor, readAccess } from '../index.js';
import { backendsFor, chownAll, clientFor, dockerGid, dockerUserGap, identity, launcherFor, leftovers, requireDocker, lines, scratch, skipNoBin, uniq, users } from '../fixtures/env.mjs';

const collect = (stream) => new Promise((resolve) => { let s = ''; stream.setEncoding('utf8').on('data', (d) => { s += d; }).on('end', () => resolve(s)); });
const sh = (script) => ['sh', '-c', script];
const deepScript = 'i=0; while [ $i -lt 1005 ]; do mkdir d && cd d || exit 9; i=$((i+1)); done; echo made';

/** Runs body for every user and backend, as subtests. */
function matrix(name, body, { backends = ['native', 'docker'] } = {}) {
  for (const u of users()) {
    test(`${name} as ${u.name}`, { skip: skipNoBin }, async (t) => {
      for (const b of await backendsFor(u.ids)) {
        if (!backends.includes(b.backend)) continue;
        await t.test(b.backend, { skip: b.skip }, async (t) => body(t, { ids: u.ids, backend: b.backend, c: clientFor(u.ids, { backend: b.backend }) }));
      }
    });
  }
}

// The extension's contract with a Node member: JSON lines over stdio, SIGTERM relayed, nothing left (native: the
// docker image has no node).
matrix('extension contract with a node member', async (t, { ids, backend, c }) => {
  const dir = scratch(t, ids);
  copyFileSync(new URL('../fixtures/member.mjs', import.meta.url), join(dir, 'member.mjs'));
  const spec = { backend, command: ['node', join(dir, 'member.mjs')], cwd: dir, access: { read: [dir], network: { mode: 'none' } }, labels: { team: 't1', member: 'm1' } };
  const sb = await c.launch(spec, { stdio: ['pipe', 'pipe', 'inherit'] });
  assert.match(sb.id, /^[0-9a-f]+$/);
  assert.equal(sb.backend, backend);
  assert.equal(sb.access.enforced, true);
  assert.deepEqual(sb.access.read, [dir]);
  assert.match(sb.reportDigest, /^[0-9a-f]{64}$/);
  const replies = lines(sb.stdout);
  for (const n of [1, 2, 3]) {
    sb.stdin.write(JSON.stringify({ ping: n }) + '\n');
    const r = await replies();
    assert.deepEqual(r.echo, { ping: n });
    assert.equal(r.access.backend, backend);
    assert.ok(r.pid > 1, 'the member is not the sandbox pid 1');
    assert.deepEqual(readAccess({ ACBOX_ACCESS: JSON.stringify(r.access) }), accessFor(spec, { base: '/' }) && readAccess({ ACBOX_ACCESS: JSON.stringify(sb.access) }));
  }
  const stopping = sb.stop();
  assert.deepEqual(await replies(), { bye: true });
  const out = await stopping;
  assert.equal(out.code, 0);
  assert.equal(out.id, sb.id);
  const kinds = [];
  for await (const ev of sb.events()) kinds.push(ev.event);
  assert.deepEqual(kinds, ['started', 'exited']);
  assert.deepEqual(leftovers(join(dir, 'member.mjs')), [], 'no process of the sandbox is left');
}, { backends: ['native'] });

// The same contract with a shell member, on every backend.
matrix('stdio, events and SIGTERM relay', async (t, { ids, backend, c }) => {
  const dir = scratch(t, ids);
  const marker = uniq();
  const spec = { backend, command: sh(`trap 'echo bye; exit 7' TERM; read line; echo "got $line"; while :; do sleep 0.1; done; : ${marker}`), cwd: dir, access: { read: [dir] } };
  const sb = await c.launch(spec);
  const out = collect(sb.stdout);
  sb.stdin.write('hello\n');
  await new Promise((r) => setTimeout(r, 500));
  const outcome = await sb.stop();
  assert.equal(outcome.code, 7);
  assert.equal(await out, 'got hello\nbye\n');
  assert.deepEqual(leftovers(marker), []);
});

// An AbortSignal stops the member; a member killed by a signal reports it.
matrix('abort signal and a member killed by a signal', async (t, { ids, backend, c }) => {
  const ac = new AbortController();
  const sb = await c.launch({ backend, command: sh('sleep 60') }, { signal: ac.signal, stdio: ['ignore', 'ignore', 'inherit'] });
  ac.abort();
  const out = await sb.exit;
  assert.equal(out.code, 143);
  // Before contract 1 the docker backend reports 143 without the signal (contract-v1.test.mjs expects it on both).
  if (backend === 'native') assert.deepEqual([out.signal, out.signalName], [15, 'SIGTERM']);
  const own = await (await c.launch({ backend, command: sh('exit 3') }, { stdio: 'ignore' })).exit;
  assert.equal(own.code, 3);
});

// Every event type acbox writes today: started, egress (a refused name, never resolved), exited.
matrix('every event type', async (t, { ids, backend, c }) => {
  const spec = { backend, command: sh('busybox wget -q -O- http://denied.invalid/ >/dev/null 2>&1; echo done'), access: { network: { allow: ['model.invalid'] } } };
  const sb = await c.launch(spec, { stdio: ['ignore', 'pipe', 'inherit'] });
  assert.equal(await collect(sb.stdout), 'done\n');
  await sb.exit;
  const events = [];
  for await (const ev of sb) events.push(ev);
  // Today an egress event can come before started (the member runs before acbox writes started): contract 1 orders them.
  assert.deepEqual(events.map((e) => e.event).sort(), ['egress', 'exited', 'started']);
  assert.equal(events.at(-1).event, 'exited');
  for (const ev of events) assert.match(ev.time, /^\d{4}-\d\d-\d\dT/);
  const egress = events.find((e) => e.event === 'egress');
  assert.deepEqual([egress.id, egress.allowed, egress.host, egress.port], [sb.id, false, 'denied.invalid', 80]);
  assert.ok(egress.reason, 'a refused request says why');
  assert.deepEqual(sb.access.network.allow, ['model.invalid']);
});

// Refusal classes acbox has today, each with its status, read from standard error.
matrix('refusals are typed errors with status, field and remedy', async (t, { ids, backend, c }) => {
  await assert.rejects(c.launch({ backend, command: ['true'], bogus: 1 }), (e) => e instanceof UsageError && e.status === 2 && e.field === 'bogus' && /remove it/.test(e.remedy));
  await assert.rejects(c.launch({ backend, command: ['true'], access: { read: ['/'] } }), (e) => e instanceof RefusedError && e.status === 125 && e.field === 'access.read[0]' && e.remedy !== '');
  const dir = scratch(t, ids);
  await assert.rejects(c.launch({ backend, command: ['true'], cwd: '/etc', access: { read: [dir] } }), (e) => e instanceof RefusedError && e.field === 'cwd');
  await assert.rejects(c.plan({ backend, command: ['true'], access: { write: ['/usr'] } }), (e) => e instanceof RefusedError && e.field === 'access.write[0]');
  await assert.rejects(c.launch({ backend: 'docker', image: 'acbox-client-missing:0', command: ['true'] }), (e) => e instanceof CannotSandboxError && e.status === 126 && e.message !== '');
  // 124: the member ran and left a directory deeper than the exit scan goes.
  const w = scratch(t, ids, '/var/tmp');
  const report = join(scratch(t, ids), 'report.json');
  const sb = await c.launch({ backend, command: sh(deepScript), cwd: w, access: { write: [w] } }, { stdio: ['ignore', 'pipe', 'pipe'], report });
  const [out] = await Promise.all([collect(sb.stdout), collect(sb.stderr)]);
  assert.equal(out, 'made\n', 'the member ran');
  await assert.rejects(sb.exit, (e) => e instanceof UncheckedError && e.status === 124 && /deeper than 1000 levels|inspect/.test(e.stderr) && e.exitScan?.unchecked?.length === 1);
});

// plan resolves without running; a report gives the outcome its exit scan.
matrix('plan, and the exit scan in the outcome', async (t, { ids, backend, c }) => {
  const dir = scratch(t, ids);
  const plan = await c.plan({ backend, command: ['true'], cwd: dir, access: { read: [dir] } });
  assert.equal(plan.backend, backend);
  assert.deepEqual(plan.command, ['true']);
  const report = join(dir, 'report.json');
  const out = await (await c.launch({ backend, command: ['true'], cwd: dir, access: { write: [dir] } }, { report, stdio: 'ignore' })).exit;
  assert.equal(out.code, 0);
  assert.deepEqual(out.exitScan.unchecked, []);
  assert.equal(out.report.backend, backend);
});

// acbox stop by id (through the client) ends the member and acbox.
matrix('stop by id', async (t, { ids, backend, c }) => {
  const labels = { suite: uniq() };
  const sb = await c.launch({ backend, command: sh('sleep 60'), labels }, { stdio: 'ignore' });
  const live = await c.ps({ labels });
  assert.deepEqual(live.map((e) => e.id), [sb.id]);
  // acbox runs as the user under test; docker as the test user with the docker group as its only extra group.
  const who = identity(live[0].owner_pid);
  assert.deepEqual([live[0].uid, who.uid], [ids?.uid ?? process.getuid(), ids?.uid ?? process.getuid()]);
  if (ids) assert.deepEqual(who.groups, backend === 'docker' ? [dockerGid] : [], 'supplementary groups of acbox');
  await c.stop(sb.id, { grace: 2000 });
  const out = await sb.exit.catch((e) => e);
  assert.ok(out.code === 143 || out.status === null, `stopped: ${JSON.stringify(out)}`);
  assert.deepEqual(await c.ps({ labels }), []);
});

// A Main that crashed leaves its acbox processes running; the next one stops them by their labels.
matrix('orphan cleanup by labels', async (t, { ids, backend, c }) => {
  const labels = { 'pi.team': uniq(), 'pi.member': 'm1' };
  const marker = uniq();
  const spec = { backend, command: sh(`sleep 300; : ${marker}`), labels };
  // The Main runs as acbox does for this user and backend (as root with the docker-group wrapper for docker).
  const as = launcherFor(ids, backend);
  const main = spawn(process.execPath, [new URL('../fixtures/orphan.mjs', import.meta.url).pathname, as.binary, JSON.stringify(spec)],
    { stdio: ['ignore', 'pipe', 'inherit'], cwd: '/', ...as.spawn });
  const id = await new Promise((resolve) => { let s = ''; main.stdout.on('data', (d) => { s += d; if (s.includes('\n')) resolve(s.trim()); }); });
  main.kill('SIGKILL');
  await new Promise((r) => main.on('exit', r));
  const live = await c.ps({ labels });
  assert.deepEqual(live.map((e) => e.id), [id], 'the orphan is still running and listed by its labels');
  assert.deepEqual(live[0].labels, labels);
  assert.deepEqual(await c.ps({ labels: { 'pi.team': 'another' } }), []);
  const { stopped } = await c.gc({ labels, grace: 2000 });
  assert.deepEqual(stopped, [id]);
  assert.deepEqual(await c.ps({ labels }), []);
  for (let i = 0; i < 50 && leftovers(marker).length; i++) await new Promise((r) => setTimeout(r, 100));
  assert.deepEqual(leftovers(marker), [], 'no process of the orphan is left');
  await assert.rejects(c.gc({ labels: {} }), TypeError);
});

// The member finds its access in the extension's shape (here converted from ACBOX_ACCESS by the member helper).
matrix('a member reads its access in the seed shape', async (t, { ids, backend, c }) => {
  const dir = scratch(t, ids);
  mkdirSync(join(dir, 'docs'));
  mkdirSync(join(dir, 'src'));
  chownAll(join(dir, 'src'), ids);
  const spec = { backend, command: sh('printf %s "$ACBOX_ACCESS"'), cwd: join(dir, 'src'), access: { read: [join(dir, 'docs')], write: [join(dir, 'src')], network: { allow: ['model.invalid'] } } };
  const sb = await c.launch(spec, { stdio: ['ignore', 'pipe', 'inherit'] });
  const got = readAccess({ ACBOX_ACCESS: await collect(sb.stdout) });
  await sb.exit;
  assert.deepEqual({ enforced: got.enforced, read: got.read, write: got.write, allow: got.network.allow },
    { enforced: true, read: [join(dir, 'docs')], write: [join(dir, 'src')], allow: ['model.invalid'] });
  const predicted = accessFor(spec);
  assert.deepEqual([predicted.read, predicted.write, predicted.network.allow], [got.read, got.write, got.network.allow]);
});

test('status reports each backend with reason and remedy', { skip: skipNoBin }, async () => {
  for (const u of users()) {
    const st = await clientFor(u.ids).status();
    for (const name of ['native', 'docker']) {
      const b = st.backends[name];
      assert.equal(typeof b.available, 'boolean');
      if (!b.available) assert.ok(b.reason, `${name} says why it is unavailable`);
    }
    assert.ok(st.preferred === null || st.backends[st.preferred].available);
    // The test user with the docker group (and nothing else) can use docker when root can.
    if (u.ids && !dockerUserGap(u.ids) && requireDocker) {
      const d = (await clientFor(u.ids, { backend: 'docker' }).status()).backends.docker;
      assert.ok(d.available, `docker as ${u.name} with the docker group: ${d.reason}`);
    }
  }
});
