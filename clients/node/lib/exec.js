// Running one acbox subcommand to completion.
import { spawn } from 'node:child_process';

/** Runs binary with args, writes input (if any) to its stdin, and collects {code, signal, stdout, stderr}. */
export function run(binary, args, { input, spawnOptions = {} } = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(binary, args, { ...spawnOptions, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '', stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d) => { stdout += d; });
    child.stderr.setEncoding('utf8').on('data', (d) => { stderr += d; });
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
    child.stdin.on('error', () => {}); // acbox may exit (a refusal) before reading all of it
    child.stdin.end(input ?? '');
  });
}
