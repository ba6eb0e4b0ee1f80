// @acbox/client: launch acbox sandboxes from Node. See README.md and
// ../../docs/extension.md; types in index.d.ts; the status stream's schema
// in ../../docs/events.schema.json, the spec's in ../../docs/spec.schema.json.
import { Acbox } from './lib/client.js';

export { Acbox, backendStatus, hasLabels } from './lib/client.js';
export { Sandbox, settle, runArgs } from './lib/launch.js';
export { EVENT_KINDS, EventLog, parseEvent, splitLines } from './lib/events.js';
export { CONTRACT, checkVersion, findBinary } from './lib/binary.js';
export {
  EXIT, AcboxError, UsageError, RefusedError, CannotSandboxError, NotFoundError, UncheckedError, BinaryError,
  errorFor, isAcboxStatus, parseStderr, fieldHolding,
} from './lib/errors.js';
export { accessFor, assertNarrower, seedAccess } from './lib/access.js';
export { readAccess } from './member.js';

/** A client for one acbox binary and identity (see Acbox). */
export const createClient = (options) => new Acbox(options);

let shared;
const client = () => (shared ??= new Acbox());
/** The functions below use a shared client: acbox on PATH, this process's identity. */
export const status = () => client().status();
export const plan = (spec, options) => client().plan(spec, options);
export const launch = (spec, options) => client().launch(spec, options);
export const ps = (options) => client().ps(options);
export const stop = (id, options) => client().stop(id, options);
export const gc = (options) => client().gc(options);
export const version = () => client().version();
