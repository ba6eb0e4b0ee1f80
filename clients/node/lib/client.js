// The client: one acbox binary and the identity it runs as (env, cwd, uid,
// gid), with the commands an extension needs.
import { AcboxError, errorFor, isAcboxStatus, parseStderr } from './errors.js';
import { ensureContract, findBinary } from './binary.js';
import { run } from './exec.js';
import { launch } from './launch.js';

const BACKENDS = ['native', 'docker'];

/** Whether every label in want is on entry (a ps entry). */
export const hasLabels = (entry, want = {}) => Object.entries(want).every(([k, v]) => entry.labels?.[k] === v);

/** A backend's status line split into reason and remedy (contract 1 reports remedy on its own). */
export function backendStatus(raw) {
  const reason = String(raw.reason ?? '').replace(/^(cannot sandbox|refused by policy|invalid request): /, '');
  if (raw.available) return { available: true, reason: '', remedy: '' };
  if (typeof raw.remedy === 'string') return { available: false, reason, remedy: raw.remedy };
  const cut = reason.indexOf('; ');
  return cut < 0 ? { available: false, reason, remedy: '' } : { available: false, reason: reason.slice(0, cut), remedy: reason.slice(cut + 2) };
}

export class Acbox {
  #binary;
  /**
   * @param {object} [options] binary (path or name on PATH), env, cwd, uid, gid (how acbox is run), and
   *   acceptPreContract (accept an acbox that reports no contract version; development only).
   */
  constructor({ binary, env, cwd, uid, gid, acceptPreContract = false } = {}) {
    this.options = { binary, acceptPreContract };
    this.spawnOptions = Object.fromEntries(Object.entries({ env, cwd, uid, gid }).filter(([, v]) => v !== undefined));
  }

  /** The binary's path, found once. */
  get binary() {
    this.#binary ??= findBinary({ binary: this.options.binary, PATH: (this.spawnOptions.env ?? process.env).PATH, cwd: this.spawnOptions.cwd });
    return this.#binary;
  }

  /** Checks the binary's contract (once); resolves with {binary, version, contract}. */
  ready() { return ensureContract(this.binary, this.spawnOptions, this.options); }

  async #run(args, { input, spec } = {}) {
    await this.ready();
    const r = await run(this.binary, args, { input, spawnOptions: this.spawnOptions });
    if (r.code === 0) return r;
    const info = { status: r.code, ...parseStderr(r.stderr, spec, this.spawnOptions.cwd), stderr: r.stderr };
    throw isAcboxStatus(r.code) ? errorFor(info) : new AcboxError(info);
  }

  /** `acbox version --json`, parsed. */
  async version() { return JSON.parse((await this.#run(['version', '--json'])).stdout); }

  /** Per backend: available, reason, remedy; and the preferred backend (native first), or null. */
  async status() {
    const list = JSON.parse((await this.#run(['status', '--json'])).stdout);
    const backends = {};
    for (const raw of list) backends[raw.backend] = backendStatus(raw);
    return { backends, preferred: BACKENDS.find((b) => backends[b]?.available) ?? null };
  }

  /** The resolved plan (`acbox plan`), or the typed refusal. within: check against live sandbox ID (contract 1). */
  async plan(spec, { within } = {}) {
    const args = ['plan', '--spec', '-'];
    if (within) args.push('--within', within);
    return JSON.parse((await this.#run(args, { input: JSON.stringify(spec) + '\n', spec })).stdout);
  }

  /** Starts a sandbox; resolves when it has started (see Sandbox), rejects with the typed refusal. */
  async launch(spec, options = {}) {
    await this.ready();
    return launch(this.binary, spec, options, this.spawnOptions);
  }

  /** Live sandboxes of this user (`acbox ps --json`), those carrying every label in labels. */
  async ps({ labels } = {}) {
    const list = JSON.parse((await this.#run(['ps', '--json'])).stdout);
    return list.filter((e) => hasLabels(e, labels));
  }

  /** Stops sandbox id and its children (`acbox stop`). */
  async stop(id, { grace = 5000 } = {}) {
    return (await this.#run(['stop', id, '--grace', `${grace}ms`])).stdout.trim().split('\n').filter(Boolean);
  }

  /**
   * Orphan cleanup: stops every live sandbox carrying all of labels (with its children), then `acbox gc` removes what
   * dead owners left. Labels must name only sandboxes no live process of yours still owns (e.g. a crashed Main's id).
   */
  async gc({ labels, grace = 5000 } = {}) {
    const stopped = [];
    if (labels !== undefined) {
      if (!Object.keys(labels).length) throw new TypeError('gc({labels}) needs at least one label; gc() alone only removes what dead owners left');
      for (const e of await this.ps({ labels })) {
        if (e.parent) continue; // stopped with its requester
        try { await this.stop(e.id, { grace }); stopped.push(e.id); } catch (err) { if (!/no such sandbox/.test(err.message)) throw err; }
      }
    }
    const removed = (await this.#run(['gc'])).stdout.trim().split('\n').filter(Boolean);
    return { stopped, removed };
  }
}
