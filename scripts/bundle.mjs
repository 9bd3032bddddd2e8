// Bundles the CLI into one file (dist/agent.mjs). One file loads markedly faster than hundreds of
// small modules resolved one by one at every start; bin/agent runs the bundle.
import { build } from 'esbuild';

await build({
  entryPoints: ['src/cli.ts'],
  outfile: 'dist/agent.mjs',
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'esm',
  minify: true,
  sourcemap: false,
  legalComments: 'none',
  logLevel: 'warning',
  // Some CommonJS dependencies call require() for Node built-ins; give the ESM bundle one.
  banner: { js: "import { createRequire as __agentRequire } from 'node:module'; const require = __agentRequire(import.meta.url);" },
});
