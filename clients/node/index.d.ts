// Types of @acbox/client. Spec mirrors docs/spec.schema.json; the events mirror docs/events.schema.json.
import type { ChildProcess, StdioOptions } from 'node:child_process';
import type { Readable, Writable } from 'node:stream';

/** The contract version this client speaks (`acbox version --json` reports it as "contract"). */
export declare const CONTRACT: 1;

export type NetworkMode = 'none' | 'proxy' | 'host';

/** The launch spec (docs/spec.schema.json). Keys marked "contract 1" need an acbox that reports contract 1. */
export interface Spec {
  /** Contract 1: the spec's schema version; absent means 1, an unknown version is refused (2). */
  version?: 1;
  backend?: 'native' | 'docker' | 'auto';
  command: string[];
  /** Must lie inside a grant. Contract 1: relative grants resolve against it. */
  cwd?: string;
  access?: {
    read?: string[];
    /** Write implies read. */
    write?: string[];
    network?: {
      mode?: NetworkMode;
      /** host or *.host, optionally :port; omitted in proxy mode: any public destination; []: none. */
      allow?: string[];
      connect_ports?: number[];
      bind_ports?: number[];
    };
  };
  mounts?: { source: string; target?: string; readonly?: boolean }[];
  tmpfs?: { target: string; size?: string }[];
  env?: Record<string, string>;
  pass_env?: string[];
  tty?: boolean;
  limits?: { memory?: string; pids?: number };
  image?: string;
  labels?: Record<string, string>;
  best_effort?: boolean;
  delegate?: boolean;
  view?: 'grants' | 'host';
  exclude?: string[];
  protect?: string[];
  unprotect?: ('.git/hooks' | '.git/config' | '.git' | 'hookspath')[];
  /** Contract 1: more environment variables that carry the member's access in the seed's shape (SeedAccess). */
  access_env?: string[];
  /** Contract 1: private roots: no grant may contain or lie inside one; runtime mounts from inside them stay allowed. */
  private?: string[];
  /** Contract 1: launch only if narrower than live sandbox ID (as `acbox run --within ID`); stopped with it. */
  within?: string;
}

/** ACBOX_ACCESS, and the started event's access. */
export interface AcboxAccess {
  enforced: boolean;
  backend?: 'native' | 'docker';
  read?: string[];
  write?: string[];
  network?: { mode?: NetworkMode; allow?: string[]; allow_any?: boolean; [extra: string]: unknown };
  [extra: string]: unknown;
}

/** The agent-team extension's AC_TEAMS_ACCESS shape: allow omitted means any public destination. Extra keys allowed. */
export type SeedAccess =
  | { enforced: false }
  | { enforced: true; read: string[]; write: string[]; network: { allow?: string[]; [extra: string]: unknown }; [extra: string]: unknown };

interface EventBase { event: string; /** RFC 3339, UTC */ time: string; id?: string }
/** pid: the sandbox's pid 1 in acbox's pid namespace; absent under docker when acbox could not verify the container's init there. */
export interface StartedEvent extends EventBase { event: 'started'; id: string; backend: 'native' | 'docker'; pid?: number; access: AcboxAccess; report_digest: string }
export interface EgressEvent extends EventBase { event: 'egress'; allowed: boolean; host: string; port: number; addr?: string; reason?: string }
export interface ExitedEvent extends EventBase { event: 'exited'; id: string; code: number; signal?: number; duration_ms?: number; exit_scan?: ExitScan }
/** Contract 1: written before acbox exits with one of its own statuses. */
export interface RefusedEvent extends EventBase { event: 'refused'; status: 2 | 124 | 125 | 126 | 127; field?: string; message: string; remedy?: string }
export type AcboxEvent = StartedEvent | EgressEvent | ExitedEvent | RefusedEvent;
export declare const EVENT_KINDS: readonly ['started', 'egress', 'exited', 'refused'];

/** The report's exit_scan: what appeared in the write grants during the run and what could not be checked. */
export interface ExitScan {
  new_setuid?: string[]; new_devices?: string[]; new_fifos?: string[]; outside_symlinks?: string[];
  setid_cleared?: string[]; filecaps_cleared?: string[]; unchecked?: string[]; git_redirects?: unknown[]; truncated?: boolean; cap?: number;
  [extra: string]: unknown;
}

export interface Outcome {
  id: string;
  /** The member's status (128+N when killed by signal N). */
  code: number;
  signal: number | null;
  signalName: string | null;
  durationMs: number | null;
  exitScan?: ExitScan;
  /** The enforcement report, when launch was given {report}. */
  report?: Record<string, unknown>;
}

export declare const EXIT: Readonly<{ USAGE: 2; UNCHECKED: 124; REFUSED: 125; CANNOT_SANDBOX: 126; NOT_FOUND: 127 }>;
export interface RefusalInfo { status?: number | null; field?: string; message?: string; remedy?: string; stderr?: string; id?: string; source?: 'event' | 'stderr' | 'spawn' }
export declare class AcboxError extends Error {
  constructor(info?: RefusalInfo);
  /** acbox's exit status (null: acbox was killed or could not be run). */
  status: number | null;
  /** The refused spec field as a JSON path ("access.read[0]"), or "". */
  field: string;
  remedy: string;
  stderr: string;
  id: string;
  source: 'event' | 'stderr' | 'spawn';
  outcome?: Outcome;
  exitScan?: ExitScan;
}
export declare class UsageError extends AcboxError { status: 2 }
export declare class RefusedError extends AcboxError { status: 125 }
export declare class CannotSandboxError extends AcboxError { status: 126 }
export declare class NotFoundError extends AcboxError { status: 127 }
export declare class UncheckedError extends AcboxError { status: 124 }
export declare class BinaryError extends Error { binary: string; version: string; contract: number | null }
export declare function errorFor(info: RefusalInfo): AcboxError;
export declare function isAcboxStatus(status: number | null): boolean;
export declare function parseStderr(stderr: string, spec?: Partial<Spec>, cwd?: string): { message: string; field: string; remedy: string };
export declare function fieldHolding(subject: string, spec?: Partial<Spec>, cwd?: string): string;

export interface BackendStatus { available: boolean; reason: string; remedy: string }
export interface Status { backends: { native?: BackendStatus; docker?: BackendStatus; [name: string]: BackendStatus | undefined }; preferred: 'native' | 'docker' | null }
export declare function backendStatus(raw: { available: boolean; reason?: string; remedy?: string }): BackendStatus;

/** An `acbox ps --json` entry. */
export interface PsEntry {
  id: string; backend: string; uid: number; owner_pid: number; owner_start: number; pid_ns?: number; helper_pid?: number;
  access?: AcboxAccess; labels?: Record<string, string>; memory: number; pids: number; started: string; parent?: string; depth?: number;
}
export declare function hasLabels(entry: PsEntry, labels?: Record<string, string>): boolean;

export type StdioMode = 'pipe' | 'inherit' | 'ignore';
export interface LaunchOptions {
  /** [stdin, stdout, stderr]; default ['pipe', 'pipe', 'inherit']. stderr is read for refusals unless a stream or fd. */
  stdio?: StdioMode | [StdioOptions | StdioMode | number | Readable | Writable | null | undefined, ...unknown[]];
  /** Aborting stops the sandbox (SIGTERM, then SIGKILL after 5 s). */
  signal?: AbortSignal;
  /** Contract 1: launch only within live sandbox ID (`--within`). */
  within?: string;
  /** Write the enforcement report to this path; the outcome then carries it and its exit_scan. */
  report?: string;
}

export declare class Sandbox implements AsyncIterable<AcboxEvent> {
  readonly id: string;
  readonly backend: 'native' | 'docker';
  /** The sandbox's pid 1 in acbox's pid namespace; undefined under docker when acbox could not verify it. */
  readonly pid: number | undefined;
  readonly access: AcboxAccess;
  readonly reportDigest: string;
  readonly started: StartedEvent;
  readonly stdin: Writable | null;
  readonly stdout: Readable | null;
  readonly stderr: Readable | null;
  readonly process: ChildProcess;
  /** The member's outcome; rejects with UncheckedError (124) or another AcboxError when acbox fails after the start. */
  readonly exit: Promise<Outcome>;
  /** Every event of this launch from the start (a nested child's too), ending when acbox exits. */
  events(): AsyncIterator<AcboxEvent>;
  [Symbol.asyncIterator](): AsyncIterator<AcboxEvent>;
  /** Passes a signal to acbox, which relays it to the member. */
  kill(signal?: NodeJS.Signals | number): boolean;
  stop(options?: { grace?: number }): Promise<Outcome>;
}

export interface ClientOptions {
  /** A path, or a name looked up on PATH; default "acbox" on PATH. */
  binary?: string;
  env?: NodeJS.ProcessEnv; cwd?: string; uid?: number; gid?: number;
  /** Accept an acbox that reports no contract (builds before contract 1). Development only. */
  acceptPreContract?: boolean;
}
export declare class Acbox {
  constructor(options?: ClientOptions);
  readonly binary: string;
  ready(): Promise<{ binary: string; version: string; contract: number }>;
  version(): Promise<Record<string, unknown>>;
  status(): Promise<Status>;
  plan(spec: Spec, options?: { within?: string }): Promise<Record<string, unknown>>;
  launch(spec: Spec, options?: LaunchOptions): Promise<Sandbox>;
  ps(options?: { labels?: Record<string, string> }): Promise<PsEntry[]>;
  stop(id: string, options?: { grace?: number }): Promise<string[]>;
  gc(options?: { labels?: Record<string, string>; grace?: number }): Promise<{ stopped: string[]; removed: string[] }>;
}
export declare function createClient(options?: ClientOptions): Acbox;
export declare function status(): Promise<Status>;
export declare function plan(spec: Spec, options?: { within?: string }): Promise<Record<string, unknown>>;
export declare function launch(spec: Spec, options?: LaunchOptions): Promise<Sandbox>;
export declare function ps(options?: { labels?: Record<string, string> }): Promise<PsEntry[]>;
export declare function stop(id: string, options?: { grace?: number }): Promise<string[]>;
export declare function gc(options?: { labels?: Record<string, string>; grace?: number }): Promise<{ stopped: string[]; removed: string[] }>;
export declare function version(): Promise<Record<string, unknown>>;

export declare function findBinary(options?: { binary?: string; PATH?: string; cwd?: string }): string;
export declare function checkVersion(binary: string, info: unknown, options?: { acceptPreContract?: boolean }): { binary: string; version: string; contract: number };

export declare function parseEvent(line: string): AcboxEvent;
export declare function splitLines(stream: Readable, onLine: (line: string) => void, onEnd?: () => void): void;
export declare class EventLog implements AsyncIterable<AcboxEvent> {
  push(event: AcboxEvent): void; end(): void; readonly events: AcboxEvent[]; readonly ended: boolean;
  find(test: (event: AcboxEvent) => boolean): Promise<AcboxEvent | undefined>;
  [Symbol.asyncIterator](): AsyncIterator<AcboxEvent>;
}
export declare function settle(end: { code: number | null; signal: NodeJS.Signals | null; error?: Error }, events: AcboxEvent[], options?: { spec?: Partial<Spec>; report?: string; stderr?: () => string; cwd?: string }): { outcome?: Outcome; error?: AcboxError };
export declare function runArgs(options?: { specFile?: string; within?: string; report?: string }): string[];

export declare function seedAccess(access: AcboxAccess | null | undefined): SeedAccess;
export declare function accessFor(spec: Spec, options?: { base?: string }): SeedAccess;
export declare function assertNarrower(actor: SeedAccess | undefined, child: SeedAccess | undefined): void;
export declare function readAccess(env?: NodeJS.ProcessEnv, names?: string[]): SeedAccess;
