// npm test's steps before vitest: the build (scripts/build.mjs, nothing when up to date), then the
// type-check and the lint side by side (tsc is mostly one thread, Biome another, on a 2-core
// machine), each one's output printed whole once both are done; npm test stops if any failed.
import { execFileSync, spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const require = createRequire(import.meta.url);

try {
  execFileSync(process.execPath, ['scripts/build.mjs'], { cwd: root, stdio: 'inherit' });
} catch (err) {
  process.exit(typeof err.status === 'number' && err.status !== 0 ? err.status : 1);
}

/** Runs a step with its output kept; resolves with its status and output. */
function step(name, command, args) {
  return new Promise((resolve) => {
    const child = spawn(command, args, { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
    const out = [];
    child.stdout.on('data', (c) => out.push(c));
    child.stderr.on('data', (c) => out.push(c));
    child.on('error', (err) => resolve({ name, code: 1, output: `${err.message}\n` }));
    child.on('close', (code, signal) =>
      resolve({ name, code: code ?? (signal ? 1 : 0), output: Buffer.concat(out).toString() }),
    );
  });
}

const results = await Promise.all([
  // npm run typecheck
  step('typecheck', process.execPath, [require.resolve('typescript/bin/tsc'), '-b', 'tsconfig.test.json']),
  // npm run lint
  step('lint', process.execPath, [require.resolve('@biomejs/biome/bin/biome'), 'check', '.']),
]);
let failed = false;
for (const r of results) {
  process.stdout.write(r.output);
  if (r.code !== 0) {
    failed = true;
    process.stderr.write(`pretest: ${r.name} failed (exit ${r.code})\n`);
  }
}
process.exit(failed ? 1 : 0);
