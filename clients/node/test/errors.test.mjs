// Unit: exit-status classes and reading a refusal from standard error (no acbox needed).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { AcboxError, CannotSandboxError, EXIT, NotFoundError, RefusedError, UncheckedError, UsageError, errorFor, isAcboxStatus, parseStderr } from '../index.js';

test('each acbox status has its class', () => {
  const cases = [[2, UsageError], [124, UncheckedError], [125, RefusedError], [126, CannotSandboxError], [127, NotFoundError]];
  for (const [status, Class] of cases) {
    const err = errorFor({ status, field: 'f', message: 'm', remedy: 'r' });
    assert.ok(err instanceof Class && err instanceof AcboxError, `status ${status}`);
    assert.deepEqual([err.status, err.field, err.message, err.remedy, err.name], [status, 'f', 'm', 'r', Class.name]);
    assert.ok(isAcboxStatus(status));
  }
  assert.equal(errorFor({ status: 3, message: 'x' }).constructor, AcboxError);
  assert.ok(!isAcboxStatus(0) && !isAcboxStatus(1) && !isAcboxStatus(143));
  assert.deepEqual(EXIT, { USAGE: 2, UNCHECKED: 124, REFUSED: 125, CANNOT_SANDBOX: 126, NOT_FOUND: 127 });
});

// Real messages of acbox before contract 1, with the field and remedy a client should recover.
const stderrCases = [
  ['invalid request: spec: access.read[0]: want a string, got the number 3', {}, 'access.read[0]', ''],
  ['invalid request: spec: unknown field "bogus" at the top level; the fields there are backend, command (docs/spec.schema.json): correct or remove it', {}, 'bogus', 'the fields there are backend, command (docs/spec.schema.json): correct or remove it'],
  ['invalid request: spec: unknown field "modes" in access.network; the fields there are mode, allow', {}, 'access.network.modes', 'the fields there are mode, allow'],
  ['invalid request: unknown network mode "bogus": use none, proxy or host', {}, 'access.network.mode', ''],
  ['invalid request: no command: give it after --, or as "command" in the spec', {}, 'command', ''],
  ['/: granting it would expose the whole of /; grant a narrower directory inside it, for example your project', { access: { read: ['/srv', '/'] } }, 'access.read[1]', 'grant a narrower directory inside it, for example your project'],
  ['/usr: system directories are read-only in every sandbox; grant it with --read, or grant a directory of your own', { access: { write: ['/usr'] } }, 'access.write[0]', 'grant it with --read, or grant a directory of your own'],
  ['/etc: --cwd is not inside any grant; grant it with --read or --write, or choose a directory inside a grant', { cwd: '/etc', access: { read: ['/srv'] } }, 'cwd', 'grant it with --read or --write, or choose a directory inside a grant'],
  ['/work/ncx: grant does not exist; create it first or fix the path', { access: { read: ['ncx'] } }, 'access.read[0]', 'create it first or fix the path'],
  ['limits.memory: 1KiB is too little: a sandbox needs at least 128MiB; give --memory 128MiB or more', {}, 'limits.memory', 'give --memory 128MiB or more'],
  ['cannot sandbox: sandbox setup failed: exec: nope: command not found in the sandbox (PATH=/usr/bin); grant the directory that holds it with --read', {}, 'command[0]', 'grant the directory that holds it with --read'],
  ['cannot sandbox: image acbox-busybox:1 is missing; build it with: docker build -t acbox-busybox:1 "$d"', {}, '', 'build it with: docker build -t acbox-busybox:1 "$d"'],
];

test('a refusal is read from standard error when no refused event came', () => {
  for (const [line, spec, field, remedy] of stderrCases) {
    const got = parseStderr(`some member output\nacbox: ${line}\n`, spec, '/work');
    assert.equal(got.message, line);
    assert.equal(got.field, field, line);
    assert.equal(got.remedy, remedy, line);
  }
});

test('the last acbox line is the message; text without one is kept', () => {
  const got = parseStderr('acbox: not checked after the run: /w/d/d: deeper than 1000 levels\nacbox: the member left something; inspect them\n');
  assert.equal(got.message, 'the member left something; inspect them');
  assert.equal(got.remedy, 'inspect them');
  assert.equal(parseStderr('segfault\n').message, 'segfault');
});
