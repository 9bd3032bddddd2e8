// Bundles the CLI into one CommonJS file (dist/agent.cjs) that bin/agent runs through a V8 code
// cache. One file loads markedly faster than hundreds of small modules resolved at every start.
// The terminal UI (Ink, React) is a second bundle, dist/tui.mjs, imported only by the interactive
// mode, so headless starts do not load it. It is ESM because Ink's layout engine (yoga) loads its
// WebAssembly with a top-level await.
import { readFileSync, rmSync } from 'node:fs';
import { resolve } from 'node:path';
import { build } from 'esbuild';

const common = {
  bundle: true,
  platform: 'node',
  target: 'node20',
  minify: true,
  sourcemap: false,
  legalComments: 'none',
  logLevel: 'warning',
};

await build({
  ...common,
  entryPoints: ['src/cli.ts'],
  outfile: 'dist/agent.cjs',
  format: 'cjs',
  // Loaded with require() only when the sandbox is on; it finds its own helper binaries beside it.
  // The cloud providers' SDKs, their credential libraries and undici are loaded from node_modules
  // only when a session chooses that provider or sets a proxy or client certificate (src/loop/providers/,
  // src/net/): bundled, they would make the one file every start reads several MB larger.
  external: [
    '@anthropic-ai/sandbox-runtime',
    '@anthropic-ai/bedrock-sdk',
    '@anthropic-ai/vertex-sdk',
    '@anthropic-ai/foundry-sdk',
    '@aws-sdk/credential-providers',
    '@aws-sdk/client-bedrock',
    'proxy-agent',
    'google-auth-library',
    '@azure/identity',
    'undici',
    // The OpenTelemetry SDK and exporters, loaded only when CLAUDE_CODE_ENABLE_TELEMETRY is set
    // (src/telemetry/otel.ts). @opentelemetry/api stays bundled: the Anthropic SDK requires it.
    '@opentelemetry/sdk-metrics',
    '@opentelemetry/sdk-logs',
    '@opentelemetry/resources',
    '@opentelemetry/exporter-*',
    '@grpc/grpc-js',
    // Loaded at its first use (src/util/shellQuote.ts): it draws a random token as it loads, which
    // the start-up snapshot would otherwise keep (scripts/snapshot.cjs).
    'shell-quote',
    // The JavaScript parser for workflow scripts (src/workflows/script.ts), loaded on a session's first workflow.
    'acorn',
  ],
  define: { 'import.meta.url': 'undefined' },
});
// One character outside ASCII makes V8 keep the whole 2.3 MB source as a two-byte string: twice the
// bytes in the start-up snapshot's heap and slower to scan. esbuild escapes strings, not every
// regular expression: write such characters as \u escapes in the source.
{
  const bytes = readFileSync('dist/agent.cjs');
  const at = bytes.findIndex((b) => b > 0x7f);
  if (at >= 0)
    throw new Error(
      `dist/agent.cjs is not ASCII at byte ${at} (${JSON.stringify(bytes.subarray(Math.max(0, at - 60), at + 20).toString())}): write the character as a \\u escape in its source`,
    );
}

/**
 * What the UI bundle changes in its dependencies for a faster first frame (bench (q)):
 * - Ink's imports of string-width go to src/tui/stringWidth.ts, which counts the characters this
 *   UI draws itself and hands anything else to string-width.
 * - Intl.Segmenter, which the libraries make as they load, is src/tui/segmenter.ts: the real one
 *   (whose first use loads ICU data) only for text this UI does not draw itself.
 * - yoga's Emscripten loader reads its inlined WebAssembly with fetch() when fetch exists, which
 *   makes Node load its whole fetch implementation (undici) at start; told that fetch is absent,
 *   it decodes the same inlined bytes itself. The build fails if that code is not found.
 */
const uiStartup = {
  name: 'ui-startup',
  setup(b) {
    const wrapper = resolve('src/tui/stringWidth.ts');
    b.onResolve({ filter: /^string-width$/ }, (args) => (args.importer === wrapper ? undefined : { path: wrapper }));
    b.onLoad({ filter: /yoga-layout[\\/]dist[\\/]binaries[\\/]yoga-wasm-base64-esm\.js$/ }, (args) => {
      const source = readFileSync(args.path, 'utf8');
      const patched = source.replaceAll('"function"!=typeof fetch', '!0');
      if (patched === source) throw new Error(`${args.path}: its fetch() check was not found (yoga changed)`);
      return { contents: patched, loader: 'js' };
    });
  },
};

// The UI's lazily imported parts (the syntax highlighter and its grammars) are chunks of their own
// in dist/tui-chunks/, loaded when first needed; old chunks go first (their names carry a hash).
rmSync('dist/tui-chunks', { recursive: true, force: true });
await build({
  ...common,
  entryPoints: { tui: 'src/tui/main.tsx' },
  plugins: [uiStartup],
  inject: ['src/tui/segmenter.ts'],
  outdir: 'dist',
  outExtension: { '.js': '.mjs' },
  splitting: true,
  chunkNames: 'tui-chunks/[name]-[hash]',
  format: 'esm',
  jsx: 'automatic',
  // React's production build; Ink's devtools hook (a dev-only optional peer) is left out, and so is
  // its CI check (see not-in-ci.mjs).
  define: { 'process.env.NODE_ENV': '"production"', 'process.env.DEV': '"false"', 'Intl.Segmenter': 'UiSegmenter' },
  alias: { 'react-devtools-core': './scripts/no-devtools.mjs', 'is-in-ci': './scripts/not-in-ci.mjs' },
  // CommonJS dependencies inside an ESM bundle still call require() for Node's own modules.
  banner: { js: "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);" },
});
