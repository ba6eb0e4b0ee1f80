import type { AcboxAccess, SeedAccess } from './index.js';
/** AC_TEAMS_ACCESS (or the names given) as is, else ACBOX_ACCESS in the seed's shape, else {enforced:false}. */
export declare function readAccess(env?: NodeJS.ProcessEnv, names?: string[]): SeedAccess;
export declare function seedAccess(access: AcboxAccess | null | undefined): SeedAccess;
