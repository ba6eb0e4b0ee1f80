// Unit: the status stream (parsing, the shared log, how a launch ends), without acbox.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { readFileSync } from 'node:fs';
import { CannotSandboxError, EVENT_KINDS, EventLog, RefusedError, UncheckedError, AcboxError, parseEvent, runArgs, settle, splitLines } from '../index.js';

const schema = JSON.parse(readFileSync(new URL('../../../docs/events.schema.json', import.meta.url), 'utf8'));
const started = { event: 'started', time: 't', id: 'a1', backend: 'native', pid: 9, access: { enforced: true }, report_digest: '0'.repeat(64) };
const exited = (code, extra = {}) => ({ event: 'exited', time: 't', id: 'a1', code, duration_ms: 5, ...extra });

test('events parse; anything else is an error', () => {
  assert.deepEqual(parseEvent(JSON.stringify(started)), started);
  for (const bad of ['', 'x', '[]', '{"id":1}', '{"event":3}', 'null']) assert.throws(() => parseEvent(bad), /acbox status stream/);
  assert.equal(parseEvent('{"event":"future","x":1}').event, 'future');
});

test('the schema describes every event kind the client knows, with its required fields', () => {
  const kinds = schema.oneOf.map((s) => s.properties.event.const);
  assert.deepEqual(kinds, [...EVENT_KINDS]);
  const required = Object.fromEntries(schema.oneOf.map((s) => [s.properties.event.const, s.required]));
  for (const key of required.started) assert.ok(key in started, key);
  assert.deepEqual(required.refused, ['status', 'message']);
});

test('split lines across chunks, and a last line without newline', async () => {
  const s = new PassThrough();
  const got = [];
  const done = new Promise((resolve) => splitLines(s, (l) => got.push(l), resolve));
  s.write('{"a":'); s.write('1}\n\n{"b"'); s.end(':2}');
  await done;
  assert.deepEqual(got, ['{"a":1}', '{"b":2}']);
});

test('every iterator of the log sees every event; find waits', async () => {
  const log = new EventLog();
  const first = log.find((e) => e.event === 'exited');
  log.push(started);
  const early = [];
  const reader = (async () => { for await (const e of log) early.push(e.event); })();
  log.push(exited(0));
  log.end();
  await reader;
  assert.deepEqual(early, ['started', 'exited']);
  assert.equal((await first).code, 0);
  const late = [];
  for await (const e of log) late.push(e.event);
  assert.deepEqual(late, ['started', 'exited']);
  assert.equal(await log.find((e) => e.event === 'nope'), undefined);
});

test('how a launch ends: outcome, refusal from the event, or from standard error', () => {
  assert.deepEqual(settle({ code: 3 }, [started, exited(3)]).outcome.code, 3);
  const killed = settle({ code: 143 }, [started, exited(143, { signal: 15 })]).outcome;
  assert.deepEqual([killed.code, killed.signal, killed.signalName], [143, 15, 'SIGTERM']);
  // A member's own 124 is not acbox's: it comes with its exited event.
  assert.equal(settle({ code: 124 }, [started, exited(124)]).outcome.code, 124);
  // A nested child's exited event (another id) is not this sandbox's.
  const child = { ...exited(0), id: 'c2' };
  const unchecked = settle({ code: 124 }, [started, { ...started, id: 'c2' }, child], { stderr: () => 'acbox: left something; inspect them\n' }).error;
  assert.ok(unchecked instanceof UncheckedError);
  assert.equal(unchecked.source, 'stderr');
  const ev = { event: 'refused', time: 't', status: 125, field: 'access.read[0]', message: '/: no', remedy: 'narrower' };
  const refused = settle({ code: 125 }, [ev], { stderr: () => 'acbox: /: no; narrower\n' }).error;
  assert.ok(refused instanceof RefusedError);
  assert.deepEqual([refused.field, refused.remedy, refused.source], ['access.read[0]', 'narrower', 'event']);
  const fromText = settle({ code: 126 }, [], { stderr: () => 'acbox: cannot sandbox: no userns; enable it\n' }).error;
  assert.ok(fromText instanceof CannotSandboxError);
  assert.equal(fromText.remedy, 'enable it');
  // Contract 1: exited, then refused 124: the error carries the member's outcome.
  const both = settle({ code: 124 }, [started, exited(0), { event: 'refused', time: 't', id: 'a1', status: 124, message: 'm' }]).error;
  assert.ok(both instanceof UncheckedError);
  assert.equal(both.outcome.code, 0);
  const sigkill = settle({ code: null, signal: 'SIGKILL' }, [started]).error;
  assert.ok(sigkill instanceof AcboxError && sigkill.status === null && /exit scan did not run/.test(sigkill.message));
});

test('the command line', () => {
  assert.deepEqual(runArgs(), ['run', '--spec', '-', '--status-fd', '3']);
  assert.deepEqual(runArgs({ specFile: '/s', within: 'abc', report: '/r' }), ['run', '--spec', '/s', '--status-fd', '3', '--within', 'abc', '--report', '/r']);
});
