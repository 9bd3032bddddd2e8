// Builds dist/agent.cache: one real session (a Bash call, then an answer) against the project's
// fake Messages API, with the cache written at exit, so it holds the code a session really runs.
// Then dist/tui.cache, the terminal UI's (src/util/cachedBundle.ts): `agent` in a pseudo-terminal
// (util-linux `script`) up to its first frame, then /exit; without `script`, the first interactive
// run writes it at its exit instead.
//
// `node scripts/warm-cache.mjs snapshot`, run before the start-up snapshot is built, instead makes
// dist/agent.snapshot-cache for it: the code that a stream-json session with a Read and a Bash call,
// and a `-p` run, compile (scripts/snapshot-warmup.cjs).
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { SNAPSHOT_FLAGS } from './snapshotFlags.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const STREAM_JSON = ['--input-format', 'stream-json', '--output-format', 'stream-json'];
/**
 * The builder's environment without what would send a warm-up run elsewhere than its stand-in
 * (a cloud provider, a gateway, a proxy, telemetry, a key) or change how the agent starts.
 * NODE_OPTIONS stays: the snapshot's builder runs under it, and a code cache is taken only under
 * the V8 flags it was made with.
 */
const buildEnv = Object.fromEntries(
  Object.entries(process.env).filter(
    ([k]) =>
      !/^(ANTHROPIC_|CLAUDE_CODE_|AWS_|CLOUD_ML_REGION$|VERTEX_REGION_|GOOGLE_APPLICATION_CREDENTIALS$|OTEL_|AGENT_|NODE_EXTRA_CA_CERTS$)/.test(
        k,
      ) && !/^(https?_proxy|no_proxy)$/i.test(k),
  ),
);
/** A warm-up agent's environment: the builder's (above), the stand-in at `url`, config in `dir`. */
const warmEnv = (url, dir) => ({
  ...buildEnv,
  ANTHROPIC_BASE_URL: url,
  ANTHROPIC_API_KEY: 'warm-up',
  CLAUDE_CONFIG_DIR: dir,
});
const { startFakeApi } = await import(pathToFileURL(join(root, 'dist/test/fake-api/server.js')).href);
if (process.argv[2] === 'snapshot') {
  await warmSnapshot();
  process.exit(0);
}
const api = await startFakeApi([
  { content: [{ type: 'tool_use', name: 'Bash', input: { command: 'true' } }] },
  { content: [{ type: 'text', text: 'warm' }] },
]);
const cwd = mkdtempSync(join(tmpdir(), 'agent-warm-'));
const line = `${JSON.stringify({ type: 'user', message: { role: 'user', content: 'warm up' } })}\n`;
await new Promise((resolve) => {
  const p = spawn(join(root, 'bin/agent'), [...STREAM_JSON, '--allowedTools', 'Bash', '--no-session-persistence'], {
    cwd,
    env: {
      ...warmEnv(api.url, cwd),
      AGENT_CODE_CACHE: 'write',
      // The code cache is for bin/agent's start without the snapshot: take that path.
      AGENT_SNAPSHOT: 'off',
    },
    stdio: ['pipe', 'ignore', 'inherit'],
  });
  p.on('close', resolve);
  p.stdin.end(line);
});

// The UI's cache is missing after a build (scripts/bundle.mjs removes it), so this run writes it.
await new Promise((resolve) => {
  const p = spawn('script', ['-qfec', join(root, 'bin/agent'), '/dev/null'], {
    cwd,
    env: { ...warmEnv(api.url, cwd), TERM: 'xterm-256color', COLUMNS: '80', LINES: '30', AGENT_SNAPSHOT: 'off' },
    stdio: ['pipe', 'pipe', 'ignore'],
  });
  closeWithin(p, 'the terminal UI did not draw its prompt in 30 s; dist/tui.cache not made', resolve);
  let out = '';
  let sent = false;
  p.stdout.on('data', (d) => {
    out += d.toString('utf8');
    if (!sent && /│ > /.test(out.replace(/\x1b\[[\d;?]*[a-zA-Z]/g, ''))) {
      sent = true;
      p.stdin.write('/exit\r');
    }
  });
  p.on('error', () => {
    process.stderr.write('warm-cache: no `script` (util-linux) to run the terminal UI; dist/tui.cache not made\n');
  });
});
await api.close();
await warmBedrock();
rmSync(cwd, { recursive: true, force: true });

/** Calls `done` once warm-up run `p` has closed; after 30 s it is killed, saying `why` on stderr. */
function closeWithin(p, why, done) {
  const timer = setTimeout(() => {
    process.stderr.write(`warm-cache: ${why}\n`);
    p.kill('SIGKILL');
  }, 30_000);
  p.on('close', () => {
    clearTimeout(timer);
    done();
  });
}

/**
 * dist/aws.cache, the code cache of the AWS libraries a Bedrock session loads (dist/aws.cjs,
 * src/loop/providers/awsLibs.ts): one `-p` run against a stand-in for Bedrock (its inference
 * profiles, and a streamed answer in AWS's event-stream framing) writes it at exit, as the first
 * run after a build would. Not AGENT_CODE_CACHE=write: agent.cache stays the session's above.
 * Event-stream frames carry CRC32s (zlib.crc32, Node >= 20.15); without it the first Bedrock run
 * writes the cache instead.
 */
async function warmBedrock() {
  const zlib = await import('node:zlib');
  if (typeof zlib.crc32 !== 'function') return;
  const { createServer } = await import('node:http');
  const frame = (payload) => {
    const headers = Buffer.concat(
      Object.entries({ ':event-type': 'chunk', ':content-type': 'application/json', ':message-type': 'event' }).map(
        ([name, value]) => {
          const n = Buffer.from(name);
          const v = Buffer.from(value);
          return Buffer.concat([Buffer.from([n.length]), n, Buffer.from([7, v.length >> 8, v.length & 0xff]), v]);
        },
      ),
    );
    const body = Buffer.from(JSON.stringify({ bytes: Buffer.from(JSON.stringify(payload)).toString('base64') }));
    const total = 12 + headers.length + body.length + 4;
    const out = Buffer.alloc(total);
    out.writeUInt32BE(total, 0);
    out.writeUInt32BE(headers.length, 4);
    out.writeUInt32BE(zlib.crc32(out.subarray(0, 8)), 8);
    headers.copy(out, 12);
    body.copy(out, 12 + headers.length);
    out.writeUInt32BE(zlib.crc32(out.subarray(0, total - 4)), total - 4);
    return out;
  };
  const events = [
    {
      type: 'message_start',
      message: {
        id: 'msg_warm',
        type: 'message',
        role: 'assistant',
        model: 'warm',
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: { input_tokens: 1, output_tokens: 1 },
      },
    },
    { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
    { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'warm' } },
    { type: 'content_block_stop', index: 0 },
    { type: 'message_delta', delta: { stop_reason: 'end_turn', stop_sequence: null }, usage: { output_tokens: 1 } },
    { type: 'message_stop' },
  ];
  const server = createServer((req, res) => {
    req.resume();
    if (req.method === 'GET' && req.url.startsWith('/inference-profiles')) {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ inferenceProfileSummaries: [{ inferenceProfileId: 'us.anthropic.claude-opus-5-5' }] }));
    } else if (req.method === 'POST' && req.url.endsWith('/invoke-with-response-stream')) {
      res.writeHead(200, { 'content-type': 'application/vnd.amazon.eventstream' });
      res.end(Buffer.concat(events.map(frame)));
    } else {
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end('{"message":"not here"}');
    }
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  await new Promise((resolve) => {
    const p = spawn(join(root, 'bin/agent'), ['-p', 'warm up', '--no-session-persistence'], {
      cwd,
      env: {
        ...buildEnv,
        CLAUDE_CODE_USE_BEDROCK: '1',
        AWS_REGION: 'us-east-1',
        AWS_ACCESS_KEY_ID: 'AKIDWARMUP',
        AWS_SECRET_ACCESS_KEY: 'warm-up',
        AWS_SESSION_TOKEN: 'warm-up',
        AWS_SHARED_CREDENTIALS_FILE: join(cwd, 'aws-credentials'),
        AWS_CONFIG_FILE: join(cwd, 'aws-config'),
        AWS_EC2_METADATA_DISABLED: 'true',
        ANTHROPIC_BEDROCK_BASE_URL: `http://127.0.0.1:${server.address().port}`,
        CLAUDE_CONFIG_DIR: cwd,
      },
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    closeWithin(p, 'the Bedrock run did not end in 30 s; dist/aws.cache not made', resolve);
  });
  server.close();
}

/**
 * dist/agent.snapshot-cache: two sessions run by scripts/snapshot-warmup.cjs under the snapshot's
 * flags, the second adding to the first's cache. A stream-json session as the SDK starts one
 * (`initialize`, then a prompt) whose model reads a file and runs a command; then a `-p` run
 * answered with text. Only code most sessions run: every compiled function makes the blob larger,
 * and each start reads all of it. Measured against a blob without the cache, alternating, CPU
 * medians of 25: a `-p` text run 235 -> 202 ms, a run with three tool calls 319 -> 293 ms, `--version`
 * 149 -> 144 ms. With Write, Edit, Glob and Grep warmed as well the blob was 0.2 MB larger and every
 * one of the three slower than this (157, 214, 296 ms).
 */
async function warmSnapshot() {
  const cacheFile = join(root, 'dist/agent.snapshot-cache');
  rmSync(cacheFile, { force: true });
  const dir = mkdtempSync(join(tmpdir(), 'agent-warm-'));
  const file = join(dir, 'notes.txt');
  writeFileSync(file, 'one\ntwo\n');
  const tool = (name, input) => ({ content: [{ type: 'tool_use', name, input }] });
  const api = await startFakeApi([
    tool('Read', { file_path: file }),
    tool('Bash', { command: 'true' }),
    { content: [{ type: 'text', text: 'warm' }] },
    { content: [{ type: 'text', text: 'warm' }] },
  ]);
  const run = (args, input) =>
    new Promise((resolve) => {
      const p = spawn(process.execPath, [...SNAPSHOT_FLAGS, join(root, 'scripts/snapshot-warmup.cjs'), '--', ...args], {
        cwd: dir,
        env: warmEnv(api.url, dir),
        stdio: ['pipe', 'ignore', 'inherit'],
      });
      closeWithin(p, `the snapshot's warm-up run (${args.join(' ')}) did not end in 30 s`, resolve);
      p.stdin.end(input);
    });
  const lines = [
    { type: 'control_request', request_id: 'warm-1', request: { subtype: 'initialize' } },
    { type: 'user', message: { role: 'user', content: 'warm up' } },
  ];
  await run(
    [...STREAM_JSON, '--verbose', '--allowedTools', 'Read,Bash', '--no-session-persistence'],
    lines.map((l) => `${JSON.stringify(l)}\n`).join(''),
  );
  await run(['-p', 'warm up', '--no-session-persistence'], '');
  await api.close();
  rmSync(dir, { recursive: true, force: true });
}
