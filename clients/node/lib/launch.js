// One sandbox: `acbox run --spec - --status-fd 3`, the spec as the first line
// of stdin (or in a private file when stdin is not ours), events on fd 3, signals
// passed on to acbox (which relays them to the member), and the outcome
// taken from the exited event, or the refusal from the refused event (with
// standard error as the fallback for a binary older than contract 1).
import { spawn } from 'node:child_process';
import { chownSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { constants, tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { AcboxError, UncheckedError, errorFor, isAcboxStatus, parseStderr } from './errors.js';
import { EventLog, parseEvent, splitLines } from './events.js';

const TAIL = 64 * 1024;
const signalName = (n) => Object.entries(constants.signals).find(([, v]) => v === n)?.[0] ?? null;

/** The command line of a launch; spec on stdin (specFile absent) or in specFile. */
export function runArgs({ specFile, within, report } = {}) {
  const args = ['run', '--spec', specFile ?? '-', '--status-fd', '3'];
  if (within) args.push('--within', within);
  if (report) args.push('--report', report);
  return args;
}

function normalStdio(stdio) {
  const list = Array.isArray(stdio) ? stdio : [stdio ?? 'pipe', stdio ?? 'pipe', stdio ?? 'inherit'];
  return [list[0] ?? 'pipe', list[1] ?? 'pipe', list[2] ?? 'inherit'];
}

/** Starts the sandbox and resolves once it has started; rejects with a typed error if acbox refuses first. */
export async function launch(binary, spec, options = {}, spawnOptions = {}) {
  const { signal, within, report } = options;
  signal?.throwIfAborted?.();
  const [inMode, outMode, errMode] = normalStdio(options.stdio);
  const line = JSON.stringify(spec) + '\n';
  // Node's pipes are socket pairs, which /dev/fd/N cannot reopen: a stdin that is not ours needs the spec in a file.
  const specOnStdin = inMode === 'pipe' || inMode === 'ignore';
  const specFile = specOnStdin ? undefined : writeSpecFile(line, spawnOptions);
  const tapErr = ['pipe', 'inherit', 'ignore'].includes(errMode);
  const stdio = [specOnStdin ? 'pipe' : inMode, outMode, tapErr ? 'pipe' : errMode, 'pipe'];
  let child;
  try {
    child = spawn(binary, runArgs({ specFile: specFile?.path, within, report }), { ...spawnOptions, stdio });
  } catch (err) { specFile?.remove(); throw err; }
  if (specOnStdin) {
    child.stdin.on('error', () => {}); // acbox may refuse before reading it
    if (inMode === 'ignore') child.stdin.end(line); else child.stdin.write(line);
  }

  let stderrTail = '';
  let stderr = null;
  if (tapErr) {
    stderr = errMode === 'pipe' ? new PassThrough() : null;
    child.stderr.on('data', (d) => {
      stderrTail = (stderrTail + d.toString('utf8')).slice(-TAIL);
      if (errMode === 'inherit') process.stderr.write(d);
      stderr?.write(d);
    });
    child.stderr.on('end', () => stderr?.end());
  }

  const log = new EventLog();
  const streamEnded = new Promise((resolve) => splitLines(child.stdio[3], (l) => {
    try { log.push(parseEvent(l)); } catch { /* not an event: ignored */ }
  }, () => { log.end(); resolve(); }));
  const processExited = new Promise((resolve) => {
    child.on('exit', (code, sig) => resolve({ code, signal: sig }));
    child.on('error', (err) => { log.end(); resolve({ error: err }); });
  });
  processExited.then(() => specFile?.remove());
  const done = Promise.all([processExited, streamEnded]).then(([end]) => settle(end, log.events, { spec, report, stderr: () => stderrTail, cwd: spawnOptions.cwd }));
  done.catch(() => {});

  const started = log.find((ev) => ev.event === 'started');
  const first = await Promise.race([started.then((ev) => ({ ev })), done.then((r) => ({ r }))]);
  if (!first.ev) {
    const r = first.r ?? await done;
    throw r.error ?? new AcboxError({ message: `acbox exited (${r.outcome?.code}) before the sandbox started`, stderr: stderrTail });
  }
  specFile?.remove(); // read by now: the sandbox has started
  return new Sandbox(child, first.ev, log, done, { stderr, signal, stdin: inMode === 'pipe' ? child.stdin : null });
}

/** The spec in a new private directory, readable by the uid acbox runs as. */
function writeSpecFile(line, { uid, gid }) {
  const dir = mkdtempSync(join(tmpdir(), 'acbox-spec-'));
  const path = join(dir, 'spec.json');
  writeFileSync(path, line, { mode: 0o600 });
  if (uid !== undefined) { chownSync(dir, uid, gid ?? -1); chownSync(path, uid, gid ?? -1); }
  return { path, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/**
 * Turns how acbox ended into the member's outcome or a typed error. A nested child's events are relayed on the same
 * stream, so only the first started event's id is this sandbox's.
 */
export function settle(end, events, { spec = {}, report, stderr = () => '', cwd } = {}) {
  if (end.error) return { error: new AcboxError({ message: `cannot run acbox: ${end.error.message}`, source: 'spawn' }) };
  const own = events.find((ev) => ev.event === 'started')?.id ?? '';
  const exited = events.find((ev) => ev.event === 'exited' && ev.id === own && own);
  const refused = events.find((ev) => ev.event === 'refused' && (!ev.id || !own || ev.id === own) && (ev.status === end.code));
  const extra = readReport(report);
  const outcome = exited ? outcomeOf(exited, extra) : undefined;
  if (refused) {
    const err = errorFor({ ...refused, message: refused.message, source: 'event', stderr: stderr(), id: own });
    const exitScan = outcome?.exitScan ?? extra.exitScan; // the exited event's (contract 1), else the report's
    return { error: Object.assign(err, outcome ? { outcome } : {}, exitScan ? { exitScan } : {}) };
  }
  if (exited && (end.code === exited.code || (end.signal && end.code === null))) return { outcome };
  if (end.signal) {
    return { error: new AcboxError({ message: `acbox was killed by ${end.signal}; its sandbox died with it and the exit scan did not run: look for set-id files (find DIR -perm /6000) and a .git you did not make in the write grants before using them`, stderr: stderr(), id: own }) };
  }
  if (isAcboxStatus(end.code)) {
    const err = errorFor({ status: end.code, ...parseStderr(stderr(), spec, cwd), stderr: stderr(), id: own });
    if (err instanceof UncheckedError && extra.exitScan) err.exitScan = extra.exitScan;
    return { error: Object.assign(err, outcome ? { outcome } : {}) };
  }
  if (!own) return { error: new AcboxError({ status: end.code, ...parseStderr(stderr(), spec, cwd), stderr: stderr() }) };
  return { outcome: { id: own, code: end.code, signal: null, signalName: null, durationMs: null, ...extra } };
}

function outcomeOf(exited, extra) {
  const sig = exited.signal || null;
  return { id: exited.id, code: exited.code, signal: sig, signalName: sig && signalName(sig), durationMs: exited.duration_ms ?? 0,
    exitScan: exited.exit_scan ?? extra.exitScan, report: extra.report };
}

function readReport(path) {
  if (!path) return {};
  try {
    const report = JSON.parse(readFileSync(path, 'utf8'));
    return { report, exitScan: report.exit_scan };
  } catch { return {}; }
}

/** A running sandbox. */
export class Sandbox {
  #child;
  #log;
  constructor(child, started, log, done, { stderr, signal, stdin }) {
    this.#child = child;
    this.#log = log;
    this.id = started.id;
    this.backend = started.backend;
    this.pid = started.pid;
    this.access = started.access;
    this.reportDigest = started.report_digest;
    this.started = started;
    this.stdin = stdin;
    this.stdout = child.stdout;
    this.stderr = stderr;
    this.process = child;
    this.exit = done.then((r) => { if (r.error) throw r.error; return r.outcome; });
    this.exit.catch(() => {});
    if (signal) {
      const onAbort = () => { this.stop().catch(() => {}); };
      signal.addEventListener('abort', onAbort, { once: true });
      done.finally(() => signal.removeEventListener('abort', onAbort));
      if (signal.aborted) onAbort();
    }
  }

  /** Every event of this launch from the start (also a nested child's), ending when acbox exits. */
  events() { return this.#log[Symbol.asyncIterator](); }
  [Symbol.asyncIterator]() { return this.events(); }

  /** Passes a signal to acbox, which relays SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1 and SIGUSR2 to the member. */
  kill(sig = 'SIGTERM') { return this.#child.exitCode === null && this.#child.signalCode === null ? this.#child.kill(sig) : false; }

  /** SIGTERM, then SIGKILL after grace ms; resolves with the outcome (or rejects with the typed error). */
  async stop({ grace = 5000 } = {}) {
    this.kill('SIGTERM');
    const timer = setTimeout(() => this.kill('SIGKILL'), grace);
    try { return await this.exit; } finally { clearTimeout(timer); }
  }
}
