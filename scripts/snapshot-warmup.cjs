// One warm-up session for the start-up snapshot (scripts/warm-cache.mjs runs it before the blob is
// built): runs the bundle as bin/agent does without the snapshot, with the command line's flags
// passed on, and at exit writes dist/agent.snapshot-cache, the V8 code cache of every function the
// session compiled. scripts/snapshot.cjs compiles the bundle from that cache, so those functions
// are in the blob already compiled: a start from it no longer parses and compiles them, about a
// tenth of a short session's CPU. A cache left by an earlier warm-up is read first, so runs of
// different sessions add up.
//
// Run it as `node --no-rehash-snapshot --optimize-for-size scripts/snapshot-warmup.cjs -- <agent
// flags>`: V8 takes a code cache only under the flags it was made with, and the builder runs under
// those (not bin/agent's, which also sets --liftoff-only).
const { readFileSync, renameSync, writeFileSync } = require('node:fs');
const { createRequire } = require('node:module');
const path = require('node:path');
const { Script } = require('node:vm');

const dist = path.join(__dirname, '..', 'dist');
const bundle = path.join(dist, 'agent.cjs');
const cacheFile = path.join(dist, 'agent.snapshot-cache');

let cachedData;
try {
  cachedData = readFileSync(cacheFile);
} catch {
  /* the first warm-up run */
}
// The same source text as scripts/snapshot.cjs compiles: V8 checks it against the cache.
const source = readFileSync(bundle, 'utf8');
const script = new Script(`(function (exports, require, module, __filename, __dirname) {${source}\n})`, {
  filename: bundle,
  cachedData,
});
if (cachedData && script.cachedDataRejected) {
  process.stderr.write(`snapshot-warmup: V8 refused ${cacheFile} from the run before; this run starts it again\n`);
}
process.once('exit', () => {
  const tmp = `${cacheFile}.${process.pid}`;
  writeFileSync(tmp, script.createCachedData());
  renameSync(tmp, cacheFile);
});
// process.argv as bin/agent's start has it: [node, bin/agent, ...flags].
process.argv.splice(1, process.argv[2] === '--' ? 2 : 1, path.join(__dirname, '..', 'bin', 'agent'));
const mod = { exports: {} };
script.runInThisContext()(mod.exports, createRequire(bundle), mod, bundle, dist);
