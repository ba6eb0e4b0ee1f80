// A stand-in for a team member: JSON lines in, JSON lines out, over stdio.
import { createInterface } from 'node:readline';

const rl = createInterface({ input: process.stdin });
const access = JSON.parse(process.env.ACBOX_ACCESS || '{}');
process.on('SIGTERM', () => {
  process.stdout.write(JSON.stringify({ bye: true }) + '\n', () => process.exit(0));
});
rl.on('line', (line) => {
  const msg = JSON.parse(line);
  process.stdout.write(JSON.stringify({ echo: msg, pid: process.pid, access }) + '\n');
});
