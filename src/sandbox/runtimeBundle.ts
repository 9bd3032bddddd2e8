// @anthropic-ai/sandbox-runtime as one CommonJS file: scripts/bundle.mjs bundles this entry into
// dist/sandbox.cjs, which runtime.ts requires when the sandbox is on. From node_modules the
// package is an ES module graph of some forty files (with node-forge, a zod of its own and a SOCKS
// server), compiled at every sandboxed start with no code cache: about 0.2 s of CPU, against about
// 0.1 s for the bundle. Its helper binaries and seccomp filters stay in the package's folder,
// which the bundle's `import.meta.url` points into (scripts/bundle.mjs).
export * from '@anthropic-ai/sandbox-runtime';
