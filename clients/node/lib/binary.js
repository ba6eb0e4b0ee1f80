// Finding the acbox binary and checking, once per binary, the contract it
// speaks (`acbox version --json` -> {"version", "contract", ...}).
import { accessSync, statSync, constants } from 'node:fs';
import { delimiter, isAbsolute, join, resolve } from 'node:path';
import { BinaryError } from './errors.js';
import { run } from './exec.js';

/** The contract version this client speaks. */
export const CONTRACT = 1;

const executable = (path) => {
  try {
    accessSync(path, constants.X_OK);
    return statSync(path).isFile();
  } catch { return false; }
};

/** The acbox to run: options.binary (a path, or a name looked up on PATH), else "acbox" on PATH. */
export function findBinary({ binary, PATH = process.env.PATH ?? '', cwd = process.cwd() } = {}) {
  const name = binary ?? 'acbox';
  if (name.includes('/')) {
    const path = isAbsolute(name) ? name : resolve(cwd, name);
    if (executable(path)) return path;
    throw new BinaryError(`acbox binary ${path} does not exist or is not executable; pass {binary: "/path/to/acbox"} or install acbox`, { binary: path });
  }
  for (const dir of PATH.split(delimiter)) {
    if (!dir) continue;
    const path = join(dir, name);
    if (executable(path)) return resolve(cwd, path);
  }
  throw new BinaryError(`${name} was not found on PATH (${PATH || 'empty'}); install acbox (contract ${CONTRACT}) or pass {binary: "/path/to/acbox"}`, { binary: name });
}

/**
 * Checks what `acbox version --json` reports against this client's contract. A binary that reports no contract is
 * refused unless acceptPreContract (a development escape hatch for acbox builds older than contract 1).
 */
export function checkVersion(binary, info, { acceptPreContract = false } = {}) {
  const version = typeof info?.version === 'string' ? info.version : '';
  const contract = info?.contract;
  const need = `this client (@acbox/client) needs an acbox whose \`acbox version --json\` reports "contract": ${CONTRACT}`;
  if (contract === undefined || contract === null) {
    if (acceptPreContract) return { binary, version, contract: 0 };
    throw new BinaryError(`${binary} (version ${version || 'unknown'}) reports no contract version; ${need}: install a release of acbox with contract ${CONTRACT}, or pass {binary} naming one`, { binary, version });
  }
  if (contract !== CONTRACT) {
    throw new BinaryError(`${binary} (version ${version}) speaks contract ${contract}; ${need}: use the @acbox/client release for contract ${contract}, or an acbox with contract ${CONTRACT}`, { binary, version, contract });
  }
  return { binary, version, contract };
}

const checked = new Map();

/** Runs `acbox version --json` once per binary (and spawn identity) and checks it; the result is cached. */
export function ensureContract(binary, spawnOptions = {}, options = {}) {
  const key = `${binary}\0${spawnOptions.uid ?? ''}\0${options.acceptPreContract ? 1 : 0}`;
  if (!checked.has(key)) {
    const p = run(binary, ['version', '--json'], { spawnOptions }).then((r) => {
      if (r.code !== 0) throw new BinaryError(`${binary} version --json exited ${r.code}: ${r.stderr.trim().slice(0, 300)}; is it acbox?`, { binary });
      let info;
      try { info = JSON.parse(r.stdout); } catch { throw new BinaryError(`${binary} version --json printed no JSON; is it acbox?`, { binary }); }
      return checkVersion(binary, info, options);
    });
    p.catch(() => checked.delete(key));
    checked.set(key, p);
  }
  return checked.get(key);
}
