// Typed errors: one class per exit status acbox itself uses, so a caller
// tells a refusal from a crash without reading English. Each carries the
// status, the refused spec field (a JSON path such as "access.read[0]", when
// acbox names one), the message and the remedy (the next step).
import { resolve } from 'node:path';

/** Exit statuses of acbox itself (a member's own status passes through). */
export const EXIT = Object.freeze({ USAGE: 2, UNCHECKED: 124, REFUSED: 125, CANNOT_SANDBOX: 126, NOT_FOUND: 127 });

/** A failure reported by acbox: a refusal, a host that cannot sandbox, or what the exit scan could not check. */
export class AcboxError extends Error {
  constructor({ status = null, field = '', message = 'acbox failed', remedy = '', stderr = '', id = '', source = 'stderr' } = {}) {
    super(message);
    this.name = new.target.name;
    this.status = status;
    this.field = field;
    this.remedy = remedy;
    this.stderr = stderr;
    this.id = id;
    /** Where the details came from: "event" (the refused event) or "stderr" (parsed text, before contract 1). */
    this.source = source;
  }
}
/** 2: the command line or spec is malformed. */
export class UsageError extends AcboxError {}
/** 125: refused by policy (a refused grant, cwd outside the grants, a wider launch, admission). */
export class RefusedError extends AcboxError {}
/** 126: the host could not provide a requested control; nothing was run. */
export class CannotSandboxError extends AcboxError {}
/** 127: the command to run was not found in the sandbox; nothing was run (contract 1; before it acbox says 126). */
export class NotFoundError extends AcboxError {}
/** 124: the member ran and left something in a write grant acbox could not check or undo; inspect before use. */
export class UncheckedError extends AcboxError {}

/** The acbox binary is missing, or does not speak the contract this client needs. Not an exit status. */
export class BinaryError extends Error {
  constructor(message, { binary = '', version = '', contract = null } = {}) {
    super(message);
    this.name = 'BinaryError';
    this.binary = binary;
    this.version = version;
    this.contract = contract;
  }
}

const classes = new Map([
  [EXIT.USAGE, UsageError], [EXIT.UNCHECKED, UncheckedError], [EXIT.REFUSED, RefusedError],
  [EXIT.CANNOT_SANDBOX, CannotSandboxError], [EXIT.NOT_FOUND, NotFoundError],
]);

/** Whether status is one acbox uses for itself (as opposed to the member's own). */
export const isAcboxStatus = (status) => classes.has(status);

/** The typed error for a refusal ({status, field, message, remedy}); unknown statuses give an AcboxError. */
export function errorFor(info) {
  const Class = classes.get(info.status) ?? AcboxError;
  return new Class(info);
}

// Top-level spec keys: a message that starts with one of them names the field.
const specKeys = ['version', 'backend', 'command', 'cwd', 'access', 'mounts', 'tmpfs', 'env', 'pass_env', 'tty', 'limits', 'image',
  'labels', 'best_effort', 'delegate', 'view', 'exclude', 'protect', 'unprotect', 'access_env', 'private', 'within'];
const pathPattern = /^([a-z_]+(?:\.[a-z_]+|\[\d+\])*)(?=: )/;
// Messages that name no path but belong to one field.
const knownFields = [
  [/^no command\b/, 'command'],
  [/command not found in the sandbox/, 'command[0]'],
  [/network mode/, 'access.network.mode'],
  [/unknown backend/, 'backend'],
];

/**
 * Reads a refusal from acbox's standard error, the fallback for a binary that writes no refused event: the last line
 * that starts with "acbox: " is the message, the text after its first "; " the remedy, and the field is the JSON path
 * the message starts with, or the spec key whose value is the refused subject (a grant, the cwd).
 */
export function parseStderr(stderr, spec = {}, cwd = process.cwd()) {
  const lines = String(stderr).split('\n').filter((l) => l.startsWith('acbox: ')).map((l) => l.slice(7).trim());
  if (!lines.length) return { message: String(stderr).trim().split('\n').pop() || '', field: '', remedy: '' };
  const message = lines[lines.length - 1];
  const cut = message.indexOf('; ');
  const remedy = cut >= 0 ? message.slice(cut + 2) : '';
  return { message, field: fieldOf(message, spec, cwd), remedy };
}

function fieldOf(message, spec, cwd) {
  const body = message.replace(/^(invalid request|cannot sandbox|refused by policy): /, '').replace(/^spec: /, '');
  const unknown = /unknown field "([^"]+)" (?:at the top level|in ([a-z_.[\]0-9]+))/.exec(body);
  if (unknown) return unknown[2] ? `${unknown[2]}.${unknown[1]}` : unknown[1];
  const path = pathPattern.exec(body);
  if (path && specKeys.includes(path[1].split(/[.[]/)[0])) return path[1];
  for (const [pattern, field] of knownFields) if (pattern.test(body)) return field;
  const subject = body.slice(0, Math.max(0, body.indexOf(': ')));
  return subject ? fieldHolding(subject, spec, cwd) : '';
}

/** The JSON path of the spec value equal to subject (as written, or resolved against the launch's cwd). */
export function fieldHolding(subject, spec = {}, cwd = process.cwd()) {
  const same = (v) => typeof v === 'string' && (v === subject || resolve(spec.cwd ?? cwd, v) === subject || resolve(cwd, v) === subject);
  const candidates = [['cwd', spec.cwd]];
  for (const key of ['write', 'read']) (spec.access?.[key] ?? []).forEach((v, i) => candidates.push([`access.${key}[${i}]`, v]));
  (spec.mounts ?? []).forEach((m, i) => candidates.push([`mounts[${i}].source`, m?.source]));
  (spec.tmpfs ?? []).forEach((m, i) => candidates.push([`tmpfs[${i}].target`, m?.target]));
  for (const key of ['exclude', 'private', 'protect']) (spec[key] ?? []).forEach((v, i) => candidates.push([`${key}[${i}]`, v]));
  if (spec.within !== undefined) candidates.push(['within', spec.within]);
  return candidates.find(([, v]) => same(v))?.[0] ?? '';
}
