// The V8 flags the start-up snapshot is built with and started with: V8 refuses a blob (and a code
// cache) made under other flags. The build (scripts/build.mjs) and the snapshot's warm-up runs
// (scripts/warm-cache.mjs) take them from here; bin/agent's shell line, the builder's own check
// (scripts/snapshot.cjs, which can load only Node's modules) and test/e2e/startup-snapshot.test.ts
// spell them out and must agree (the builder refuses to run under others).
export const SNAPSHOT_FLAGS = ['--no-rehash-snapshot', '--optimize-for-size'];
