// Unit: access in the agent-team extension's shape (its access.ts), and status lines.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { accessFor, assertNarrower, backendStatus, hasLabels, readAccess, seedAccess } from '../index.js';

test('ACBOX_ACCESS becomes the seed shape: allow omitted for any public destination', () => {
  const base = { enforced: true, backend: 'native', read: ['/r'], write: ['/w'] };
  assert.deepEqual(seedAccess({ ...base, network: { mode: 'none', allow: [], allow_any: false } }),
    { enforced: true, backend: 'native', read: ['/r'], write: ['/w'], network: { mode: 'none', allow: [] } });
  assert.deepEqual(seedAccess({ ...base, network: { mode: 'proxy', allow: [], allow_any: true } }).network, { mode: 'proxy' });
  assert.deepEqual(seedAccess({ ...base, network: { mode: 'proxy', allow: ['B.example', 'a.example'], allow_any: false } }).network, { mode: 'proxy', allow: ['a.example', 'b.example'] });
  assert.deepEqual(seedAccess({ ...base, network: { mode: 'host' } }).network, { mode: 'host' });
  assert.deepEqual(seedAccess({ enforced: false, read: ['/x'] }), { enforced: false });
  assert.deepEqual(seedAccess(undefined), { enforced: false });
  // As the seed: a read grant inside a write grant is not listed twice.
  assert.deepEqual(seedAccess({ ...base, read: ['/w/sub', '/r'], network: {} }).read, ['/r']);
});

test('accessFor resolves relative grants against the spec cwd, as the seed does', () => {
  const a = accessFor({ command: ['pi'], cwd: '/repo/parser', access: { read: ['/repo/docs', '../lib'], write: ['.'], network: { allow: ['api.example'] } } });
  assert.deepEqual(a, { enforced: true, read: ['/repo/docs', '/repo/lib'], write: ['/repo/parser'], network: { mode: 'proxy', allow: ['api.example'] } });
  assert.deepEqual(accessFor({ command: ['x'], access: { read: ['d'] } }, { base: '/b' }).read, ['/b/d']);
  assert.deepEqual(accessFor({ command: ['x'] }).network, { mode: 'none', allow: [] });
  assert.equal(accessFor({ command: ['x'], access: { network: { mode: 'proxy' } } }).network.allow, undefined);
});

test('readAccess prefers AC_TEAMS_ACCESS, else converts ACBOX_ACCESS', () => {
  const seed = { enforced: true, read: ['/a'], write: [], network: {} };
  assert.deepEqual(readAccess({ AC_TEAMS_ACCESS: JSON.stringify(seed), ACBOX_ACCESS: '{}' }), seed);
  assert.deepEqual(readAccess({ ACBOX_ACCESS: JSON.stringify({ enforced: true, read: ['/a'], write: [], network: { mode: 'proxy', allow: [], allow_any: true } }) }),
    { enforced: true, read: ['/a'], write: [], network: { mode: 'proxy' } });
  assert.deepEqual(readAccess({}), { enforced: false });
});

test('assertNarrower: the seed rules for grants and allowlists', () => {
  const actor = { enforced: true, read: ['/repo'], write: ['/repo/src'], network: { allow: ['*.example.com', 'api.x.org:8443'] } };
  const ok = { enforced: true, read: ['/repo/docs'], write: ['/repo/src/a'], network: { allow: ['a.example.com', 'api.x.org:8443'] } };
  assert.doesNotThrow(() => assertNarrower(actor, ok));
  assert.doesNotThrow(() => assertNarrower(undefined, ok));
  assert.throws(() => assertNarrower(actor, { ...ok, write: ['/repo/docs'] }), /Write access to \/repo\/docs/);
  assert.throws(() => assertNarrower(actor, { ...ok, read: ['/etc'] }), /Read access to \/etc/);
  assert.throws(() => assertNarrower(actor, { ...ok, network: {} }), /public access/);
  assert.throws(() => assertNarrower(actor, { ...ok, network: { allow: ['example.com'] } }), /Network access to example.com/);
  assert.throws(() => assertNarrower(actor, { ...ok, network: { allow: ['api.x.org'] } }), /exceeds/);
  assert.throws(() => assertNarrower(actor, { enforced: false }), /unsandboxed/);
});

test('status lines split into reason and remedy; labels match as a subset', () => {
  assert.deepEqual(backendStatus({ available: true }), { available: true, reason: '', remedy: '' });
  assert.deepEqual(backendStatus({ available: false, reason: 'cannot sandbox: image x is missing; build it with: docker build' }),
    { available: false, reason: 'image x is missing', remedy: 'build it with: docker build' });
  assert.deepEqual(backendStatus({ available: false, reason: 'cannot sandbox: no daemon', remedy: 'start it' }), { available: false, reason: 'no daemon', remedy: 'start it' });
  assert.ok(hasLabels({ labels: { a: '1', b: '2' } }, { a: '1' }));
  assert.ok(!hasLabels({ labels: { a: '1' } }, { a: '2' }));
  assert.ok(!hasLabels({}, { a: '1' }));
  assert.ok(hasLabels({}, {}));
});
