// For the member side (no dependency on the rest of the client): the access a
// member was launched with, in the agent-team extension's shape.
import { seedAccess } from './lib/access.js';

/**
 * The member's access: AC_TEAMS_ACCESS as given (the spec's access_env, contract 1), else ACBOX_ACCESS converted to
 * the same shape, else {enforced:false} (not in a sandbox).
 */
export function readAccess(env = process.env, names = ['AC_TEAMS_ACCESS']) {
  for (const name of names) if (env[name]) return JSON.parse(env[name]);
  return env.ACBOX_ACCESS ? seedAccess(JSON.parse(env.ACBOX_ACCESS)) : { enforced: false };
}

export { seedAccess };
