// `npm run build` (also npm install's `prepare` and npm test's `pretest`): tsc, then the bundles, the
// warm-up runs whose compiled code goes into the start-up snapshot, the snapshot and the code
// caches. Nothing runs when nothing they are made from has changed since the last build that
// finished (dist/.build-inputs: a hash of src/, tools/, scripts/, bin/, test/fake-api/, the package
// files, the node running the build and NODE_OPTIONS) and the blob is newer than the bundle, so
// `npm install` then `npm test` builds once; tsc is incremental (dist/.tsbuildinfo) for the builds
// that do run.
// `node scripts/build.mjs --force` runs every step.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { alignBlob } from './alignBlob.mjs';
import { SNAPSHOT_FLAGS } from './snapshotFlags.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const dist = join(root, 'dist');
const stampFile = join(dist, '.build-inputs');
const force = process.argv.includes('--force');

/** Runs node with these arguments in the project folder; a failed step ends the build with its status. */
function node(...args) {
  try {
    execFileSync(process.execPath, args, { cwd: root, stdio: 'inherit' });
  } catch (err) {
    process.exit(typeof err.status === 'number' && err.status !== 0 ? err.status : 1);
  }
}

/** Every file under these folders (and these files), hashed with its path, in a stable order. */
function inputsHash() {
  const hash = createHash('sha256');
  const add = (path) => {
    hash.update(relative(root, path));
    hash.update('\0');
    hash.update(readFileSync(path));
    hash.update('\0');
  };
  const walk = (dir) => {
    for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.isFile()) add(path);
    }
  };
  for (const dir of ['src', 'tools', 'scripts', 'bin', 'test/fake-api']) walk(join(root, dir));
  for (const file of ['package.json', 'package-lock.json', 'tsconfig.json'])
    if (existsSync(join(root, file))) add(join(root, file));
  // The snapshot and the code caches belong to the node that made them and to its V8 flags.
  hash.update(`${process.execPath}\0${process.version}\0${process.env.NODE_OPTIONS ?? ''}`);
  return hash.digest('hex');
}

// What a finished build leaves (not the blob and its stamp when the snapshot's audit refused it:
// the next build then runs again).
const OUTPUTS = [
  'src/cli.js',
  'test/fake-api/server.js',
  'agent.cjs',
  'agent.blob',
  'agent.blob.node',
  'agent.cache',
  'tui.cjs',
  'sandbox.cjs',
  'aws.cjs',
  'otel.cjs',
  'undici.cjs',
];
const hash = inputsHash();
let stamp = '';
try {
  stamp = readFileSync(stampFile, 'utf8').trim();
} catch {}
/** bin/agent starts from the blob only when it is newer than the bundle: a bundle made since (say by
 * `node scripts/bundle.mjs` run by hand) leaves every start on the slower path, so the build runs. */
const blobCurrent = () => statSync(join(dist, 'agent.blob')).mtimeMs > statSync(join(dist, 'agent.cjs')).mtimeMs;
if (!force && stamp === hash && OUTPUTS.every((f) => existsSync(join(dist, f))) && blobCurrent()) {
  process.stderr.write('build: dist/ is up to date\n');
  process.exit(0);
}
rmSync(stampFile, { force: true });
// --force: tsc compiles everything again too (its incremental state goes).
if (force) rmSync(join(dist, '.tsbuildinfo'), { force: true });
node(createRequire(import.meta.url).resolve('typescript/bin/tsc'), '-p', 'tsconfig.json');
node('scripts/bundle.mjs');
node('scripts/warm-cache.mjs', 'snapshot');
node(
  '--no-warnings',
  ...SNAPSHOT_FLAGS,
  '--snapshot-blob',
  'dist/agent.blob',
  '--build-snapshot',
  'scripts/snapshot.cjs',
);
alignBlob(join(dist, 'agent.blob'));
node('scripts/warm-cache.mjs');
writeFileSync(stampFile, `${hash}\n`);
