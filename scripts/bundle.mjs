// Bundles the CLI into one CommonJS file (dist/agent.cjs) that bin/agent runs through a V8 code
// cache. One file loads markedly faster than hundreds of small modules resolved at every start.
import { build } from 'esbuild';

await build({
  entryPoints: ['src/cli.ts'],
  outfile: 'dist/agent.cjs',
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'cjs',
  minify: true,
  sourcemap: false,
  legalComments: 'none',
  // Loaded with require() only when the sandbox is on; it finds its own helper binaries beside it.
  // The cloud providers' SDKs, their credential libraries and undici are loaded from node_modules
  // only when a session chooses that provider or sets a proxy or client certificate (src/providers/,
  // src/net/): bundled, they would make the one file every start reads several MB larger.
  external: [
    '@anthropic-ai/sandbox-runtime',
    '@anthropic-ai/bedrock-sdk',
    '@anthropic-ai/vertex-sdk',
    '@anthropic-ai/foundry-sdk',
    '@aws-sdk/credential-providers',
    'google-auth-library',
    '@azure/identity',
    'undici',
  ],
  define: { 'import.meta.url': 'undefined' },
  logLevel: 'warning',
});
