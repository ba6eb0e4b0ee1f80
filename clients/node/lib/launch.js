// One sandbox: `acbox run --spec - --status-fd 3`, the spec as the first line
// of stdin (or on fd 4 when stdin is not a pipe), events on fd 3, signals
// passed on to acbox (which relays them to the member), and the outcome
// taken from the exited event, or the refusal from the refused event (with
// standard error as the fallback for a binary older than contract 1).
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { constants } from 'node:os';
import { PassThrough } from 'node:stream';
import { AcboxError, UncheckedError, errorFor, isAcboxStatus, parseStderr } from './errors.js';
import { EventLog, parseEvent, splitLines } from './events.js';

const TAIL = 64 * 1024;
const signalName = (n) => Object.entries(constants.signals).find(([, v]) => v === n)?.[0] ?? null;

/** The command line of a launch; spec on stdin ("-") or on fd 4. */
export function runArgs({ specOnStdin = true, within, report } = {}) {
  const args = ['run', '--spec', specOnStdin ? '-' : '/dev/fd/4', '--status-fd', '3'];
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
  const specOnStdin = inMode === 'pipe';
  const tapErr = ['pipe', 'inherit', 'ignore'].includes(errMode);
  const stdio = [inMode, outMode, tapErr ? 'pipe' : errMode, 'pipe'];
  if (!specOnStdin) stdio.push('pipe');
  const child = spawn(binary, runArgs({ specOnStdin, within, report }), { ...spawnOptions, stdio });
  const line = JSON.stringify(spec) + '\n';
  const specStream = specOnStdin ? child.stdin : child.stdio[4];
  specStream.on('error', () => {}); // acbox may refuse before reading it
  if (specOnStdin) specStream.write(line); else specStream.end(line);

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
  const done = Promise.all([processExited, streamEnded]).then(([end]) => settle(end, log.events, { spec, report, stderr: () => stderrTail, cwd: spawnOptions.cwd }));
  done.catch(() => {});

  const started = log.find((ev) => ev.event === 'started');
  const first = await Promise.race([started.then((ev) => ({ ev })), done.then((r) => ({ r }))]);
  if (!first.ev) {
    const r = first.r ?? await done;
    throw r.error ?? new AcboxError({ message: `acbox exited (${r.outcome?.code}) before the sandbox started`, stderr: stderrTail });
  }
  return new Sandbox(child, first.ev, log, done, { stderr, signal });
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
    return { error: Object.assign(err, outcome ? { outcome } : {}, extra.exitScan ? { exitScan: extra.exitScan } : {}) };
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
  constructor(child, started, log, done, { stderr, signal }) {
    this.#child = child;
    this.#log = log;
    this.id = started.id;
    this.backend = started.backend;
    this.pid = started.pid;
    this.access = started.access;
    this.reportDigest = started.report_digest;
    this.started = started;
    this.stdin = child.stdin;
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
