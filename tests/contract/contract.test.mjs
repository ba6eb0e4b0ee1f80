// The contract the agent-team extension relies on, exercised the way it
// uses acbox: `acbox run --spec - --status-fd 3`, the spec as the first line
// of stdin, JSON lines with the member over stdio, events on fd 3, SIGTERM
// to stop, and nothing left behind. Run by `make integration`.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, execFileSync } from 'node:child_process';
import { mkdtempSync, copyFileSync, chmodSync, chownSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { join } from 'node:path';

const bin = process.env.ACBOX_BIN;
const testUser = process.env.ACBOX_TEST_USER || 'acbox-test';

function userIds(name) {
  try {
    const line = readFileSync('/etc/passwd', 'utf8').split('\n').find((l) => l.startsWith(name + ':'));
    const f = line.split(':');
    return { uid: Number(f[2]), gid: Number(f[3]), home: f[5] };
  } catch { return null; }
}

function lines(stream) {
  const queue = []; const waiters = [];
  createInterface({ input: stream }).on('line', (l) => {
    const v = JSON.parse(l);
    const w = waiters.shift();
    if (w) w(v); else queue.push(v);
  });
  return () => new Promise((resolve, reject) => {
    if (queue.length) return resolve(queue.shift());
    const t = setTimeout(() => reject(new Error('timed out waiting for a line')), 10000);
    waiters.push((v) => { clearTimeout(t); resolve(v); });
  });
}

function leftovers(marker) {
  return readdirSync('/proc').filter((p) => /^\d+$/.test(p)).filter((p) => {
    try { return readFileSync(`/proc/${p}/cmdline`, 'utf8').includes(marker); } catch { return false; }
  });
}

async function contract(t, ids) {
  const dir = mkdtempSync('/tmp/acbox-contract-');
  chmodSync(dir, 0o755);
  copyFileSync(new URL('./member.mjs', import.meta.url), join(dir, 'member.mjs'));
  if (ids) { chownSync(dir, ids.uid, ids.gid); }
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const spec = {
    command: ['node', join(dir, 'member.mjs')], cwd: dir,
    access: { read: [dir], network: { mode: 'none' } }, labels: { team: 't1', member: 'm1' },
  };
  const opts = { stdio: ['pipe', 'pipe', 'inherit', 'pipe'] };
  if (ids) Object.assign(opts, { uid: ids.uid, gid: ids.gid, env: { ...process.env, HOME: ids.home, USER: testUser } });
  const child = spawn(bin, ['run', '--spec', '-', '--status-fd', '3'], opts);
  const exited = new Promise((resolve) => child.on('exit', (code, signal) => resolve({ code, signal })));
  const events = lines(child.stdio[3]);
  const replies = lines(child.stdout);
  child.stdin.write(JSON.stringify(spec) + '\n');

  const started = await events();
  assert.equal(started.event, 'started');
  assert.equal(started.backend, 'native');
  assert.equal(started.access.enforced, true);
  assert.deepEqual(started.access.read, [dir]);
  assert.match(started.report_digest, /^[0-9a-f]{64}$/);

  for (const n of [1, 2, 3]) {
    child.stdin.write(JSON.stringify({ ping: n }) + '\n');
    const r = await replies();
    assert.deepEqual(r.echo, { ping: n });
    assert.equal(r.access.backend, 'native');
    assert.ok(r.pid > 1, 'the member is not the sandbox pid 1');
  }

  child.kill('SIGTERM');
  assert.deepEqual(await replies(), { bye: true });
  const end = await exited;
  assert.equal(end.code, 0);
  const done = await events();
  assert.equal(done.event, 'exited');
  assert.equal(done.code, 0);
  assert.deepEqual(leftovers(join(dir, 'member.mjs')), [], 'no process of the sandbox is left');
}

test('extension contract as root', { skip: !bin && 'ACBOX_BIN is not set' }, async (t) => {
  await contract(t, null);
});

test('extension contract as an unprivileged user', { skip: (!bin && 'ACBOX_BIN is not set') || (process.getuid() !== 0 && 'needs root to switch users') || (!userIds(testUser) && `no user ${testUser}`) }, async (t) => {
  await contract(t, userIds(testUser));
});
