// Builds dist/agent.blob, a V8 start-up snapshot of the CLI's bundle with every module of a
// headless session initialised (`npm run build`: node --snapshot-blob dist/agent.blob
// --build-snapshot scripts/snapshot.cjs). bin/agent starts Node from it when it is usable, so a
// start skips reading, compiling and initialising the bundle; without it (or with
// AGENT_SNAPSHOT=off) bin/agent runs the bundle through its code cache as before.
//
// A snapshot keeps the heap as the build left it, so a module must not read the environment, the
// clock, the process or the working directory at its top level: the build machine's values would
// be kept. This script watches those reads while the bundle initialises and refuses to make a
// blob when one comes from the bundle, naming it (the build then fails: scripts/build.mjs).
const { readFileSync, rmSync, writeFileSync } = require('node:fs');
const { isBuiltin, createRequire } = require('node:module');
const os = require('node:os');
const path = require('node:path');
const { setFlagsFromString, startupSnapshot } = require('node:v8');
const vm = require('node:vm');

const dist = path.join(__dirname, '..', 'dist');
const bundle = path.join(dist, 'agent.cjs');
const stamp = path.join(dist, 'agent.blob.node');
// bin/agent uses a blob only beside its stamp (the node that made it): a failed build leaves neither.
rmSync(stamp, { force: true });
rmSync(path.join(dist, 'agent.blob'), { force: true });
// bin/agent starts the blob with these flags (see there why), and V8 refuses a blob built under
// other flags: build it under the same ones (scripts/snapshotFlags.mjs; this script may load only
// Node's own modules, so it spells them out).
const startFlags = ['--no-rehash-snapshot', '--optimize-for-size'];
if (!startFlags.every((f) => process.execArgv.includes(f))) {
  process.stderr.write(
    `scripts/snapshot.cjs: run it as \`node ${startFlags.join(' ')} --build-snapshot\`, as bin/agent starts the blob\n`,
  );
  process.exit(1);
}

// --- The audit: record reads that come from the bundle while it initialises. ---
const reads = new Set();
// The builder starts without Error.stackTraceLimit (Node puts it back after deserialisation).
/** Where in the bundle the current call comes from (`line:column`), or undefined. */
const bundleFrame = () => {
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 50;
  try {
    const at = (new Error().stack ?? '').split('\n').find((l) => l.includes(bundle));
    return at && /:(\d+:\d+)\)?$/.exec(at)?.[1];
  } finally {
    if (limit === undefined) delete Error.stackTraceLimit;
    else Error.stackTraceLimit = limit;
  }
};
const note = (what, into = reads) => {
  const at = bundleFrame();
  if (at) into.add(`${what} (dist/agent.cjs:${at})`);
};
/** Node modules loaded into the snapshot that must not be (see `unsnapshottable` below). */
const loads = new Set();
const undo = [];
function watch(obj, key, what) {
  const desc = Object.getOwnPropertyDescriptor(obj, key);
  if (!desc) return;
  undo.push(() => Object.defineProperty(obj, key, desc));
  if (typeof desc.value === 'function') {
    const fn = desc.value;
    Object.defineProperty(obj, key, {
      ...desc,
      value: function (...args) {
        note(what);
        return Reflect.apply(fn, this, args);
      },
    });
  } else {
    const get = desc.get ?? (() => desc.value);
    Object.defineProperty(obj, key, {
      configurable: true,
      enumerable: desc.enumerable,
      get() {
        note(what);
        return get.call(this);
      },
      set: desc.set ?? (desc.writable ? (v) => Object.defineProperty(obj, key, { ...desc, value: v }) : undefined),
    });
  }
}
const realEnv = process.env;
const envProxy = new Proxy(realEnv, {
  get(t, k) {
    if (typeof k === 'string') note(`process.env.${k}`);
    return Reflect.get(t, k);
  },
  has(t, k) {
    if (typeof k === 'string') note(`process.env.${k}`);
    return Reflect.has(t, k);
  },
  ownKeys(t) {
    note('process.env (all keys)');
    return Reflect.ownKeys(t);
  },
});
Object.defineProperty(process, 'env', { configurable: true, enumerable: true, writable: true, value: envProxy });
undo.push(() =>
  Object.defineProperty(process, 'env', { configurable: true, enumerable: true, writable: true, value: realEnv }),
);
for (const k of ['pid', 'ppid', 'stdin', 'stdout', 'stderr', 'argv', 'execArgv', 'title'])
  watch(process, k, `process.${k}`);
for (const k of ['cwd', 'hrtime', 'uptime', 'memoryUsage', 'cpuUsage', 'getuid', 'umask'])
  watch(process, k, `process.${k}()`);
for (const k of ['homedir', 'tmpdir', 'hostname', 'userInfo', 'cpus', 'networkInterfaces', 'totalmem', 'freemem'])
  watch(os, k, `os.${k}()`);
watch(Date, 'now', 'Date.now()');
// Web Crypto is loaded into the snapshot (below); ids drawn from it at build time would repeat.
for (const k of ['randomUUID', 'getRandomValues']) watch(Object.getPrototypeOf(globalThis.crypto), k, `crypto.${k}()`);
watch(Math, 'random', 'Math.random()');
watch(performance, 'now', 'performance.now()');
const RealDate = Date;
globalThis.Date = new Proxy(RealDate, {
  construct(t, args, nt) {
    if (args.length === 0) note('new Date()');
    return Reflect.construct(t, args, nt);
  },
});
undo.push(() => {
  globalThis.Date = RealDate;
});

// --- Initialise the bundle as bin/agent would, with main's modules too (the `prepare` hook). ---
let lateRequire = null;
// Node modules whose state a snapshot does not carry over: loaded into it, they break the started
// process (node:worker_threads keeps a shared counter there, and every `new Worker` then fails
// with "undefined is not an integer typed array"). Load them when first needed instead.
const unsnapshottable = new Set(['worker_threads']);
let building = true;
const req = (id) => {
  if (building && unsnapshottable.has(id.replace(/^node:/, ''))) note(`node:${id.replace(/^node:/, '')}`, loads);
  if (isBuiltin(id)) return require(id);
  if (!lateRequire) throw new Error(`the bundle required ${id} while it initialised`);
  return lateRequire(id);
};
let runMain;
let prepared;
globalThis[Symbol.for('agent-runtime.snapshotMain')] = (run, prepare) => {
  runMain = run;
  prepared = prepare();
};
const source = readFileSync(bundle, 'utf8');
// The code cache of the warm-up sessions (scripts/snapshot-warmup.cjs): the functions they ran are
// compiled from it now and kept compiled in the blob, so a start does not parse them again.
const warmCache = path.join(dist, 'agent.snapshot-cache');
let cachedData;
try {
  cachedData = readFileSync(warmCache);
} catch {
  process.stderr.write(`scripts/snapshot.cjs: no ${warmCache}; the blob's functions compile at their first call\n`);
}
const script = new vm.Script(`(function (exports, require, module, __filename, __dirname) {${source}\n})`, {
  filename: bundle,
  cachedData,
});
if (cachedData && script.cachedDataRejected) {
  process.stderr.write(
    `scripts/snapshot.cjs: V8 refused ${warmCache} (made from another bundle or under other flags); the blob's functions compile at their first call\n`,
  );
}
const wrapper = script.runInThisContext();
const mod = { exports: {} };
wrapper(mod.exports, req, mod, bundle, dist);
delete globalThis[Symbol.for('agent-runtime.snapshotMain')];
if (!runMain) throw new Error(`${bundle} did not hand over its main function`);

prepared.then(
  () => {
    building = false;
    for (const u of undo.reverse()) u();
    if (reads.size > 0) {
      process.stderr.write(
        `scripts/snapshot.cjs: no start-up snapshot: the bundle reads ${[...reads].join(', ')} while it initialises (its value would be the build's); read it when it is needed instead. bin/agent runs the bundle through its code cache meanwhile.\n`,
      );
      process.exit(1);
    }
    if (loads.size > 0) {
      process.stderr.write(
        `scripts/snapshot.cjs: no start-up snapshot: the bundle loads ${[...loads].join(', ')} while it initialises, whose state does not survive a snapshot (a process started from it could not start worker threads); load it when it is first needed instead.\n`,
      );
      process.exit(1);
    }
    // Loaded now, not at the first id (about 1.5 ms of a start); nothing is drawn from it here.
    void globalThis.crypto.subtle;
    return exerciseNodeInternals().then(() => {
      // The node that made the blob, and the folder it was made in (the bundle's paths are kept).
      writeFileSync(stamp, `${process.execPath}\n${dist}\n`);
      startupSnapshot.setDeserializeMainFunction(start);
    });
  },
  (err) => {
    process.stderr.write(`scripts/snapshot.cjs: the bundle's main modules failed to initialise: ${err.stack}\n`);
    process.exit(1);
  },
);

/**
 * Runs the parts of Node's own modules that every session runs and that are already in the heap
 * (streams, a TCP socket, a child process, URLs, AbortController, buffers and decoders, synchronous
 * fs calls), so they are in the blob compiled: a `-p` start otherwise compiled some 340 of Node's
 * functions at their first call (V8's function events), about 3 % of its CPU. Only
 * functions: nothing it makes outlives it (the socket, server and child are closed, the folder
 * removed), it draws nothing random (crypto.randomUUID keeps a buffer of random bytes, which the
 * blob would keep), and it sets no timer: the timers module's state (the next expiry, on the
 * builder's clock) would be kept, and a process whose clock reads earlier (libfaketime in the
 * scheduling tests) then never scheduled its long timers. A failure only costs speed, and says so.
 */
async function exerciseNodeInternals() {
  const fs = require('node:fs');
  const net = require('node:net');
  const { once } = require('node:events');
  const { Readable, Writable } = require('node:stream');
  const { urlToHttpOptions } = require('node:url');
  try {
    // A loopback connection, both ways, as a session's request to the API and its stdin/stdout.
    const server = net.createServer((s) => {
      s.on('data', (d) => s.write(d));
      s.on('end', () => s.end());
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const socket = net.connect({ port: server.address().port, host: '127.0.0.1', noDelay: true, keepAlive: true });
    await once(socket, 'connect');
    socket.cork();
    socket.write('one ');
    socket.write(Buffer.from('two'));
    socket.uncork();
    socket.end();
    const decoder = new TextDecoder();
    let echoed = '';
    for await (const chunk of socket) echoed += decoder.decode(chunk, { stream: true });
    if (echoed !== 'one two') throw new Error(`the loopback echo gave ${JSON.stringify(echoed)}`);
    server.close();
    await once(server, 'close');
    // Streams in memory, paused and flowing, with back-pressure.
    const parts = [];
    const sink = new Writable({
      highWaterMark: 4,
      write(chunk, _enc, cb) {
        parts.push(chunk);
        process.nextTick(cb);
      },
    });
    const source = Readable.from(['a', 'b', 'c']);
    source.pipe(sink);
    await once(sink, 'finish');
    const paused = new Readable({ read() {} });
    paused.push('x');
    paused.push(null);
    paused.read();
    paused.resume();
    await once(paused, 'end');
    paused.setEncoding('utf8');
    // A child process with pipes, as a tool's command or a hook.
    const { spawn } = require('node:child_process');
    const child = spawn('/bin/sh', ['-c', 'echo x'], { stdio: ['pipe', 'pipe', 'pipe'], env: {} });
    child.stdin.end();
    child.stdout.setEncoding('utf8');
    for await (const _ of child.stdout);
    await once(child, 'close');
    // Buffers and decoding as the stream parsers use them.
    const buf = Buffer.from('data: {"x":"ü"}\n\n', 'utf8');
    buf.indexOf('\n\n');
    buf.subarray(0, 4).toString('utf8');
    buf.toString('latin1');
    Buffer.alloc(4).slice(1);
    const { StringDecoder } = require('node:string_decoder');
    const sd = new StringDecoder('utf8');
    sd.write(buf);
    sd.end();
    void [os.platform(), os.type(), os.release()];
    // URLs as the API client builds them.
    const url = new URL('http://127.0.0.1:1/v1/messages?beta=true');
    url.searchParams.set('x', '1');
    urlToHttpOptions(url);
    void [url.href, url.hostname, url.pathname, url.protocol, url.search, String(url.searchParams)];
    void [...url.searchParams.entries()];
    // An abort signal with listeners.
    const ac = new AbortController();
    const onAbort = () => {};
    ac.signal.addEventListener('abort', onAbort, { once: true });
    ac.signal.removeEventListener('abort', onAbort);
    ac.abort();
    // The synchronous file calls of a start (config folder, transcript, session files).
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-snapshot-build-'));
    try {
      fs.mkdirSync(path.join(dir, 'a', 'b'), { recursive: true });
      const file = path.join(dir, 'a', 'f');
      const fd = fs.openSync(file, 'w');
      fs.writeSync(fd, 'x');
      fs.fstatSync(fd);
      fs.closeSync(fd);
      fs.renameSync(file, `${file}2`);
      fs.accessSync(`${file}2`);
      fs.statSync(`${file}2`);
      fs.existsSync(file);
      fs.readdirSync(dir, { withFileTypes: true });
      fs.realpathSync.native(dir);
      fs.realpathSync(dir);
      // The loader's resolution of a package, as the bundle requires its external ones (loading one
      // here would mark user code as started, which a snapshot's start refuses). A bundle built
      // elsewhere may have none beside it.
      try {
        createRequire(bundle).resolve('acorn');
      } catch {}
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  } catch (err) {
    process.stderr.write(
      `scripts/snapshot.cjs: Node's modules were not run before the snapshot (${err.message}); a start compiles them at their first call\n`,
    );
  }
}

// A process started from a user snapshot has no `console.Console` on Node 20 (libraries that make
// their own console, such as the OpenTelemetry SDK and Ink, need it): the builder's is kept.
const { Console } = console;

/** What bin/agent does before it runs the bundle, then the CLI's main. */
function start() {
  if (typeof console.Console !== 'function') console.Console = Console;
  // The same V8 settings as bin/agent (see there why). --optimize-for-size is one of the flags the
  // blob is built and started with (startFlags above), in force from the heap's creation.
  setFlagsFromString('--liftoff-only');
  // bin/agent starts this heap with --no-rehash-snapshot, so it keeps the seed its build drew at
  // random (one per install); isolates made from now on (worker threads, from Node's own snapshot,
  // whose seed is the same in every copy of Node) are rehashed with a fresh one, as by default.
  setFlagsFromString('--rehash-snapshot');
  lateRequire = createRequire(bundle);
  // process.argv as a script start has it: [node, bin/agent, ...flags].
  process.argv.splice(1, 0, path.join(__dirname, '..', 'bin', 'agent'));
  runMain();
}
