// Unit: finding acbox and checking its contract, with stand-in binaries (no acbox needed).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, mkdtempSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BinaryError, CONTRACT, checkVersion, createClient, findBinary } from '../index.js';

function fakeAcbox(t, versionJSON) {
  const dir = mkdtempSync(join(tmpdir(), 'acbox-client-bin-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const bin = join(dir, 'acbox');
  writeFileSync(bin, `#!/bin/sh\n[ "$1 $2" = "version --json" ] && { echo '${versionJSON}'; exit 0; }\necho '[]'\n`);
  chmodSync(bin, 0o755);
  return { dir, bin };
}

test('found on PATH, by name, or by path; a clear error otherwise', (t) => {
  const { dir, bin } = fakeAcbox(t, '{}');
  assert.equal(findBinary({ PATH: `/nonexistent:${dir}` }), bin);
  assert.equal(findBinary({ binary: bin, PATH: '' }), bin);
  assert.equal(findBinary({ binary: './acbox', cwd: dir }), bin);
  assert.throws(() => findBinary({ PATH: '/nonexistent' }), (e) => e instanceof BinaryError && /not found on PATH/.test(e.message) && /contract 1/.test(e.message));
  assert.throws(() => findBinary({ binary: join(dir, 'missing') }), /does not exist or is not executable/);
  const notExec = join(dir, 'plain');
  writeFileSync(notExec, '');
  assert.throws(() => findBinary({ binary: notExec }), BinaryError);
  mkdirSync(join(dir, 'sub', 'acbox'), { recursive: true });
  assert.throws(() => findBinary({ PATH: join(dir, 'sub') }), BinaryError, 'a directory named acbox is not the binary');
});

test('the contract is checked; a binary without one names what is needed', () => {
  assert.equal(CONTRACT, 1);
  assert.deepEqual(checkVersion('/b', { version: '1.2.3', contract: 1 }), { binary: '/b', version: '1.2.3', contract: 1 });
  assert.throws(() => checkVersion('/b', { version: '(devel)' }), (e) => e instanceof BinaryError && /reports no contract version/.test(e.message) && /"contract": 1/.test(e.message));
  assert.throws(() => checkVersion('/b', { version: '9.0.0', contract: 2 }), /speaks contract 2/);
  assert.equal(checkVersion('/b', { version: '(devel)' }, { acceptPreContract: true }).contract, 0);
});

test('first use runs version --json once and refuses a binary without a contract', async (t) => {
  const old = fakeAcbox(t, '{"version":"(devel)"}');
  await assert.rejects(createClient({ binary: old.bin }).status(), (e) => e instanceof BinaryError && e.binary === old.bin);
  const good = fakeAcbox(t, '{"version":"1.0.0","contract":1}');
  const c = createClient({ binary: good.bin });
  assert.deepEqual(await c.ready(), { binary: good.bin, version: '1.0.0', contract: 1 });
  assert.deepEqual(await c.status(), { backends: {}, preferred: null });
});
