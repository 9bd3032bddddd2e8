// npm test's checks before vitest (after the build): `npm run typecheck` and `npm run lint` side by
// side (tsc is mostly one thread, Biome another, on a 2-core machine), each one's output printed
// whole once both are done. It fails if either does.
import { spawn } from 'node:child_process';

/** Runs `npm run <script>` with its output kept; resolves with its status and output. */
function npmRun(script) {
  // Under npm (npm test), the npm that runs us; else the one on PATH.
  const [command, args] = process.env.npm_execpath ? [process.execPath, [process.env.npm_execpath]] : ['npm', []];
  return new Promise((resolve) => {
    const child = spawn(command, [...args, 'run', '--silent', script], { stdio: ['ignore', 'pipe', 'pipe'] });
    const out = [];
    child.stdout.on('data', (c) => out.push(c));
    child.stderr.on('data', (c) => out.push(c));
    child.on('error', (err) => resolve({ script, code: 1, output: `${err.message}\n` }));
    child.on('close', (code) => resolve({ script, code: code ?? 1, output: Buffer.concat(out).toString() }));
  });
}

let failed = false;
for (const r of await Promise.all([npmRun('typecheck'), npmRun('lint')])) {
  process.stdout.write(r.output);
  if (r.code !== 0) {
    failed = true;
    process.stderr.write(`checks: npm run ${r.script} failed (exit ${r.code})\n`);
  }
}
process.exit(failed ? 1 : 0);
