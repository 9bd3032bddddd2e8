// Bundles the CLI into one CommonJS file (dist/agent.cjs) that bin/agent runs through a V8 code
// cache. One file loads markedly faster than hundreds of small modules resolved at every start.
// The terminal UI (Ink, React) is a second bundle, dist/tui.cjs, loaded only by the interactive
// mode, so headless starts do not load it; it too runs through a code cache of its own.
import { readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, resolve } from 'node:path';
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

/**
 * The cloud providers' Anthropic packages (Bedrock, Vertex, Foundry) are small wrappers around the
 * Anthropic SDK. Loaded from node_modules, each brought a second copy of that SDK (246 files, about
 * 0.2 s of CPU at every start on that cloud). Bundled, their ESM builds share the bundle's SDK; what
 * they import from their clouds' libraries stays out of this file, and is required as Node would
 * resolve it from the wrapper's own folder: the Bedrock wrapper keeps versions of @smithy packages
 * of its own (node_modules/@anthropic-ai/bedrock-sdk/node_modules), which differ from the ones the
 * AWS SDK uses. The Bedrock wrapper's come from dist/aws.cjs (built below, resolved so), the
 * others' from node_modules.
 */
/**
 * Wrapper dependencies required at the first read of one of their exports rather than when the
 * wrapper loads. The Bedrock wrapper imports the whole Bedrock runtime client
 * (@aws-sdk/client-bedrock-runtime: about 70 ms of CPU to load) only for its exception classes,
 * which it reads when a stream carries an error frame.
 */
const LAZY_WRAPPER_DEPS = new Set([
  '@anthropic-ai/bedrock-sdk|@aws-sdk/client-bedrock-runtime',
  // The Vertex wrapper makes a GoogleAuth only when it is given no auth client; we always give one
  // (src/loop/providers/vertex.ts), so a session that skips Google auth never loads the library
  // (about 0.09 s of CPU).
  '@anthropic-ai/vertex-sdk|google-auth-library',
]);
const CLOUD_WRAPPER = /node_modules\/(@anthropic-ai\/(?:bedrock|vertex|foundry)-sdk)\//;
const awsLibs = resolve('src/loop/providers/awsLibs.ts');
/** What the Bedrock wrapper requires (not lazily) in the CLI's bundle: dist/aws.cjs must provide each. */
const bedrockWrapperDeps = new Set();
const cloudWrapperDeps = {
  name: 'cloud-wrapper-deps',
  setup(b) {
    b.onResolve({ filter: /^(@smithy|@aws-crypto|@aws-sdk|@azure)\/|^google-auth-library$/ }, (args) => {
      const wrapper = CLOUD_WRAPPER.exec(args.importer)?.[1];
      if (!wrapper) return undefined;
      // The SigV4 signer's SHA-256 in Node's crypto, not pure JavaScript (src/loop/providers/nativeSha256.ts).
      if (wrapper === '@anthropic-ai/bedrock-sdk' && args.path === '@aws-crypto/sha256-js')
        return { path: resolve('src/loop/providers/nativeSha256.ts') };
      return { path: `${wrapper}|${args.path}`, namespace: 'cloud-wrapper-dep' };
    });
    b.onLoad({ filter: /.*/, namespace: 'cloud-wrapper-dep' }, (args) => {
      const [wrapper, dep] = args.path.split('|');
      if (LAZY_WRAPPER_DEPS.has(args.path)) {
        // Its exports listed now, each required at its first read (see LAZY_WRAPPER_DEPS).
        const names = Object.keys(createRequire(createRequire(import.meta.url).resolve(wrapper))(dep));
        return {
          contents: `const { createRequire } = require('node:module');
let real;
const load = () => (real ??= createRequire(createRequire(__filename).resolve(${JSON.stringify(wrapper)}))(${JSON.stringify(dep)}));
for (const name of ${JSON.stringify(names)}) Object.defineProperty(exports, name, { enumerable: true, get: () => load()[name] });`,
          loader: 'js',
        };
      }
      // The Bedrock wrapper's from dist/aws.cjs (src/loop/providers/awsLibs.ts), built below with them.
      if (wrapper === '@anthropic-ai/bedrock-sdk') {
        bedrockWrapperDeps.add(dep);
        return {
          contents: `module.exports = require(${JSON.stringify(awsLibs)}).awsWrapperDep(${JSON.stringify(wrapper)}, ${JSON.stringify(dep)});`,
          loader: 'js',
          resolveDir: dirname(awsLibs),
        };
      }
      return {
        // __filename is the bundle's (the require the bundle is given at start has no resolve()).
        contents: `const { createRequire } = require('node:module');
module.exports = createRequire(createRequire(__filename).resolve(${JSON.stringify(wrapper)}))(${JSON.stringify(dep)});`,
        loader: 'js',
      };
    });
  },
};

/**
 * The Anthropic SDK and its cloud wrappers get src/net/webHeaders.ts as their `Headers`: the
 * global one is a getter that loads Node's whole fetch implementation (undici), which a session
 * whose requests go through src/net/httpFetch.ts never otherwise loads (about 60 ms of CPU per
 * start). The class is shared by all four packages, so their `instanceof Headers` checks agree.
 * Their tests of a request body are given ours too (BODY_TESTS below).
 */
const ANTHROPIC_PACKAGE = /node_modules[\\/]@anthropic-ai[\\/](?:sdk|bedrock-sdk|vertex-sdk|foundry-sdk)[\\/].*\.mjs$/;
/**
 * The Bedrock wrapper transcodes Bedrock's event stream into SSE and hands the SDK a `new
 * Response(ReadableStreamFrom(frames))`: the global Response, and the web stream, load Node's fetch
 * (undici) and web streams. It gets src/net/httpFetch.ts's MadeResponse instead, which gives the SDK
 * the frames as an async iterable, as httpFetch gives a body: Bedrock's requests then go through
 * httpFetch (src/loop/providers/bedrock.ts) without loading undici.
 */
const BEDROCK_SSE_FILE = '@anthropic-ai/bedrock-sdk/core/streaming.mjs';
const BEDROCK_SSE_RESPONSE = 'new Response(ReadableStreamFrom(sseFrames()),';
let givenMadeResponse = false;
const givenHeaders = new Set();
/**
 * The SDK's tests of a request body that read a global which loads part of Node's fetch, each
 * replaced with src/net/webStreams.ts's function of the same test, which reads the global only for a
 * value that could be one; `given` collects the files it was made in (client.mjs must be one).
 */
const BODY_TESTS = [
  {
    what: 'body test',
    // `globalThis.ReadableStream && body instanceof globalThis.ReadableStream`: Node's web streams.
    test: /globalThis\.ReadableStream\s*&&\s*([\w.]+)\s+instanceof\s+globalThis\.ReadableStream/g,
    fn: 'isWebReadableStream',
    given: new Set(),
  },
  // `body instanceof FormData`, asked of a body that is not bytes: undici.
  { what: 'FormData test', test: /([\w.]+)\s+instanceof\s+FormData\b/g, fn: 'isFormData', given: new Set() },
];
const sdkGlobals = {
  name: 'sdk-globals',
  setup(b) {
    const webHeaders = resolve('src/net/webHeaders.ts');
    const webStreams = resolve('src/net/webStreams.ts');
    const httpFetchModule = resolve('src/net/httpFetch.ts');
    b.onLoad({ filter: ANTHROPIC_PACKAGE }, (args) => {
      let source = readFileSync(args.path, 'utf8');
      const file = args.path.replace(/.*node_modules[\\/]/, '').replaceAll('\\', '/');
      const imports = [];
      if (/\bHeaders\b/.test(source)) {
        givenHeaders.add(file);
        imports.push(`import { WebHeaders as Headers } from ${JSON.stringify(webHeaders)};`);
      }
      for (const { test, fn, given } of BODY_TESTS) {
        const replaced = source.replace(test, `__${fn}($1)`);
        if (replaced === source) continue;
        given.add(file);
        source = replaced;
        imports.push(`import { ${fn} as __${fn} } from ${JSON.stringify(webStreams)};`);
      }
      if (file === BEDROCK_SSE_FILE) {
        if (!source.includes(BEDROCK_SSE_RESPONSE))
          return { errors: [{ text: `${file}: \`${BEDROCK_SSE_RESPONSE}\` was not found (the wrapper changed?)` }] };
        givenMadeResponse = true;
        source = source.replace(BEDROCK_SSE_RESPONSE, 'new __MadeResponse(sseFrames(),');
        imports.push(`import { MadeResponse as __MadeResponse } from ${JSON.stringify(httpFetchModule)};`);
      }
      if (imports.length === 0) return undefined;
      return { contents: `${imports.join('\n')}\n${source}`, loader: 'js', resolveDir: dirname(args.path) };
    });
  },
};

await build({
  ...common,
  entryPoints: ['src/cli.ts'],
  plugins: [cloudWrapperDeps, sdkGlobals],
  // The wrappers' own folders are found with resolve() on purpose (cloudWrapperDeps).
  logOverride: { 'require-resolve-not-external': 'silent' },
  outfile: 'dist/agent.cjs',
  format: 'cjs',
  // Loaded with require() only when the sandbox is on; it finds its own helper binaries beside it.
  // The cloud providers' libraries (not their Anthropic wrappers: see above) and undici are loaded
  // only when a session chooses that provider or sets a proxy or client certificate (src/loop/providers/,
  // src/net/), AWS's and undici's from bundles of their own (dist/aws.cjs, dist/undici.cjs):
  // bundled here, they would make the one file every start reads several MB larger.
  external: [
    '@anthropic-ai/sandbox-runtime',
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
    // The JavaScript parser for workflow scripts (src/workflows/script.ts), loaded on a session's first workflow.
    'acorn',
    // WebFetch's HTML to Markdown (turndown, with the DOM it brings: @mixmark-io/domino, 250 KB) and
    // the cron tools' libraries (croner, cronstrue), each imported at its first use: bundled, they
    // were never run at start yet their source was in every start-up snapshot (read, checksummed
    // and deserialised at each start).
    'turndown',
    'croner',
    'cronstrue',
  ],
  define: { 'import.meta.url': 'undefined' },
});
// The SDK's header building and its request path must have WebHeaders, or the first request loads
// undici again; a new SDK layout that moved them would otherwise pass unnoticed.
for (const file of ['@anthropic-ai/sdk/internal/headers.mjs', '@anthropic-ai/sdk/client.mjs'])
  if (!givenHeaders.has(file))
    throw new Error(`${file} was not given src/net/webHeaders.ts (the SDK's layout changed?)`);
for (const { what, given } of BODY_TESTS)
  if (!given.has('@anthropic-ai/sdk/client.mjs'))
    throw new Error(`@anthropic-ai/sdk/client.mjs's ${what} was not given src/net/webStreams.ts's (the SDK changed?)`);
if (!givenMadeResponse) throw new Error(`${BEDROCK_SSE_FILE} was not given MadeResponse (the wrapper moved?)`);
// The OpenTelemetry SDK, required by src/telemetry/otel.ts only when telemetry is on: one file
// instead of several hundred small ones from node_modules (src/telemetry/otelSdk.ts). gRPC's
// transport stays in node_modules: otlpClientCert.ts's channel credentials must be its instance's.
// Their code caches (src/util/cachedBundle.ts) belong to the old bundles: the next run that loads one writes it.
rmSync('dist/otel.cache', { force: true });
rmSync('dist/sandbox.cache', { force: true });
await build({
  ...common,
  entryPoints: ['src/telemetry/otelSdk.ts'],
  outfile: 'dist/otel.cjs',
  format: 'cjs',
  external: ['@grpc/grpc-js'],
  // It runs as a vm.Script (src/util/cachedBundle.ts), which has no loader for import(): the OTLP
  // HTTP transport's `await import("http")` becomes a require of the same module.
  plugins: [
    {
      name: 'otel-no-import',
      setup(b) {
        patch(
          b,
          /otlp-exporter-base[\\/]dist[\\/]platform[\\/]node[\\/]configuration[\\/]otlp-node-http-configuration\.cjs$/,
          [
            ['import("http")', 'Promise.resolve(require("http"))'],
            ['import("https")', 'Promise.resolve(require("https"))'],
          ],
        );
        patch(b, /otlp-exporter-base[\\/]dist[\\/]platform[\\/]node[\\/]transport[\\/]http-exporter-transport\.cjs$/, [
          ['import("http")', 'Promise.resolve(require("http"))'],
          ['import("https")', 'Promise.resolve(require("https"))'],
        ]);
      },
    },
  ],
});
// The Bash sandbox's runtime, required by src/sandbox/runtime.ts only when the sandbox is on: one
// CommonJS file instead of the package's ES modules (src/sandbox/runtimeBundle.ts). The package
// finds its vendored binaries (apply-seccomp, the seccomp filters) from its modules' own URL
// (dist/sandbox/*.js, then ../../vendor): `import.meta.url` is a file in that folder of the
// installed package, resolved when the bundle loads.
await build({
  ...common,
  entryPoints: ['src/sandbox/runtimeBundle.ts'],
  outfile: 'dist/sandbox.cjs',
  format: 'cjs',
  define: { 'import.meta.url': '__sandboxRuntimeUrl' },
  // Its `which` runs in this process, not as a spawned `which` per lookup (src/sandbox/whichSync.ts).
  plugins: [
    {
      name: 'sandbox-which',
      setup(b) {
        b.onResolve({ filter: /[\\/]utils[\\/]which\.js$/ }, (args) =>
          /@anthropic-ai[\\/]sandbox-runtime[\\/]/.test(args.importer)
            ? { path: resolve('src/sandbox/whichSync.ts') }
            : undefined,
        );
      },
    },
  ],
  banner: {
    js: `const __sandboxRuntimeUrl = require('node:url').pathToFileURL(require('node:path').join(require('node:path').dirname(require('node:module').createRequire(__filename).resolve('@anthropic-ai/sandbox-runtime')), 'sandbox', 'bundled.js')).href;`,
  },
});
// undici (the proxy and client-certificate dispatcher, the Monitor tool's WebSocket) as one file
// run through a code cache, instead of its modules from node_modules (src/net/undici.ts).
rmSync('dist/undici.cache', { force: true });
await build({ ...common, entryPoints: ['undici'], outfile: 'dist/undici.cjs', format: 'cjs' });
// The AWS libraries of a Bedrock session as one file run through a code cache, instead of their few
// hundred modules from node_modules (src/loop/providers/awsLibs.ts): the credential chain and the
// control-plane client the agent requires (AWS_LIBRARIES), and what the bundled Bedrock wrapper
// requires, each resolved from the wrapper's folder as Node resolves it there (its nested @smithy
// versions stay its own). Each is an esbuild CommonJS wrapper: it runs at its first require, not when
// the file loads. The build fails if the file does not give each of them with the exports the
// package itself has.
rmSync('dist/aws.cache', { force: true });
{
  const { AWS_LIBRARIES } = await import('../dist/src/loop/providers/awsLibs.js');
  const fromHere = createRequire(import.meta.url);
  const bedrockWrapper = fromHere.resolve('@anthropic-ai/bedrock-sdk');
  if (bedrockWrapperDeps.size === 0)
    throw new Error('the Bedrock wrapper required nothing from its folder (its layout changed?)');
  const modules = [
    ...AWS_LIBRARIES.map((name) => [name, fromHere.resolve(name)]),
    // Sorted: the onLoad order varies, and every build should make the same file.
    ...[...bedrockWrapperDeps]
      .sort()
      .map((dep) => [`@anthropic-ai/bedrock-sdk|${dep}`, createRequire(bedrockWrapper).resolve(dep)]),
  ];
  await build({
    ...common,
    stdin: {
      contents: `module.exports = {\n${modules.map(([key, path]) => `  ${JSON.stringify(key)}: () => require(${JSON.stringify(path)}),`).join('\n')}\n};`,
      resolveDir: process.cwd(),
      sourcefile: 'aws-libraries.js',
      loader: 'js',
    },
    outfile: 'dist/aws.cjs',
    format: 'cjs',
    // The files Node's require() loads: without `module` (esbuild's default condition) several
    // @smithy packages would come as their ES builds, with import() of Node's modules.
    conditions: [],
    plugins: [
      {
        name: 'aws-no-import',
        // The store of a Lambda invocation's context (run only inside AWS Lambda) loads Node's
        // async_hooks with import(), which a vm.Script has no loader for: a require of the same.
        setup(b) {
          patch(b, /@aws[\\/]lambda-invoke-store[\\/]dist-cjs[\\/]invoke-store\.js$/, [
            ["await import('node:async_hooks')", "require('node:async_hooks')"],
          ]);
        },
      },
    ],
  });
  const bundled = fromHere(resolve('dist/aws.cjs'));
  for (const [key, path] of modules) {
    const want = Object.keys(fromHere(path)).sort().join();
    const got = typeof bundled[key] === 'function' ? Object.keys(bundled[key]()).sort().join() : '(none)';
    if (got !== want) throw new Error(`dist/aws.cjs gives ${key} exports ${got}, the package ${want}`);
  }
}
// The bundles src/util/cachedBundle.ts runs as vm.Scripts, where import() fails.
for (const file of ['dist/otel.cjs', 'dist/sandbox.cjs', 'dist/undici.cjs', 'dist/aws.cjs']) {
  const at = readFileSync(file, 'utf8').search(/\bimport\(/);
  if (at >= 0) throw new Error(`${file} calls import() at ${at}: it runs with no module loader; make it a require`);
}
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
    b.onResolve({ filter: /^string-width$/ }, (args) => {
      if (args.pluginData?.real) return undefined;
      return args.importer === wrapper ? { path: 'string-width', namespace: 'lazy' } : { path: wrapper };
    });
    // string-width builds its Unicode-property regexes as it loads (about 20 ms of CPU): the wrapper
    // gets it through a require() at its first call, which esbuild makes a lazily run module.
    b.onLoad({ filter: /^string-width$/, namespace: 'lazy' }, async () => {
      const real = await b.resolve('string-width', {
        kind: 'require-call',
        resolveDir: dirname(wrapper),
        importer: wrapper,
        pluginData: { real: true },
      });
      if (real.errors.length) return { errors: real.errors };
      return {
        contents: `let w; export default function stringWidth(text, options) { w ??= require(${JSON.stringify(real.path)}).default; return w(text, options); }`,
        loader: 'js',
        resolveDir: dirname(wrapper),
      };
    });
    // Ink's `import Yoga from 'yoga-layout'` gets src/tui/yoga.ts, which has no top-level await.
    b.onResolve({ filter: /^yoga-layout$/ }, () => ({ path: resolve('src/tui/yoga.ts') }));
    patch(b, /yoga-layout[\\/]dist[\\/]binaries[\\/]yoga-wasm-base64-esm\.js$/, [
      ['"function"!=typeof fetch', '!0'],
      // Its inlined WebAssembly is decoded by Node's own base64 decoder, not a loop over a string.
      [
        'var b=xa(a.slice(37)),c=new Uint8Array(b.length);for(a=0;a<b.length;++a)c[a]=b.charCodeAt(a);var d=c',
        'var d=new Uint8Array(Buffer.from(a.slice(37),"base64"))',
      ],
    ]);
    // The two top-level awaits of Ink's reconciler run only when DEV=true (React devtools): gone.
    patch(b, /ink[\\/]build[\\/]reconciler\.js$/, [
      ["await import('./devtools.js');", 'void 0;'],
      ['? await loadPackageJson()', '? undefined'],
    ]);
  },
};

/** Replaces each [from, to] in the files `filter` matches; the build fails when one is not found. */
function patch(b, filter, pairs) {
  b.onLoad({ filter }, (args) => {
    let source = readFileSync(args.path, 'utf8');
    for (const [from, to] of pairs) {
      if (!source.includes(from)) throw new Error(`${args.path}: \`${from}\` was not found (the package changed)`);
      source = source.replaceAll(from, to);
    }
    return { contents: source, loader: 'js' };
  });
}

// CommonJS, so that it runs from a V8 code cache as the CLI's bundle does (src/util/cachedBundle.ts;
// Node 20 keeps no compile cache for ES modules). Its lazily imported parts (marked, the syntax
// highlighter and its grammars) are inside, compiled only when first imported.
rmSync('dist/tui-chunks', { recursive: true, force: true });
rmSync('dist/tui.mjs', { force: true });
// Its code cache belongs to the old bundle (scripts/warm-cache.mjs makes the new one).
rmSync('dist/tui.cache', { force: true });
await build({
  ...common,
  entryPoints: ['src/tui/main.tsx'],
  plugins: [uiStartup],
  inject: ['src/tui/segmenter.ts'],
  outfile: 'dist/tui.cjs',
  format: 'cjs',
  jsx: 'automatic',
  // React's production build; Ink's devtools hook (a dev-only optional peer) is left out, and so is
  // its CI check (see not-in-ci.mjs).
  define: {
    'process.env.NODE_ENV': '"production"',
    'process.env.DEV': '"false"',
    'Intl.Segmenter': 'UiSegmenter',
    'import.meta.url': 'undefined',
  },
  alias: { 'react-devtools-core': './scripts/no-devtools.mjs', 'is-in-ci': './scripts/not-in-ci.mjs' },
});
