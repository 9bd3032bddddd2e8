// `node dist/test/fake-api/cli.js <script.json> [--port N]`: serve a JSON array script and print
// {"url": "..."} on one stdout line, so a person or the demo can point ANTHROPIC_BASE_URL at it.
import { readFileSync } from 'node:fs';
import { startFakeApi, type ScriptedReply } from './server.js';

function usage(message: string): never {
  process.stderr.write(`${message}\nusage: node dist/test/fake-api/cli.js <script.json> [--port N]\n`);
  process.exit(2);
}

const args = process.argv.slice(2);
let port: number | undefined;
const portAt = args.indexOf('--port');
if (portAt >= 0) {
  port = Number(args[portAt + 1]);
  if (!Number.isInteger(port) || port < 0 || port > 65535) usage(`bad --port: ${args[portAt + 1]}`);
  args.splice(portAt, 2);
}
const file = args[0];
if (!file) usage('missing script file');

let script: ScriptedReply[];
try {
  script = JSON.parse(readFileSync(file, 'utf8'));
} catch (e) {
  usage(`cannot read ${file}: ${(e as Error).message}`);
}
if (!Array.isArray(script)) usage(`${file}: the script must be a JSON array of replies`);

const api = await startFakeApi(script, { port });
process.stdout.write(`${JSON.stringify({ url: api.url })}\n`);

// Log each request on stderr so a person can follow along; stdout stays one line.
let seen = 0;
const timer = setInterval(() => {
  for (; seen < api.requests.length; seen++) {
    const r = api.requests[seen];
    process.stderr.write(
      `fake-api: #${seen + 1} ${r.path} model=${r.body?.model ?? '?'} messages=${r.body?.messages?.length ?? '?'}\n`,
    );
  }
}, 200);

for (const sig of ['SIGINT', 'SIGTERM'] as const) {
  process.once(sig, () => {
    clearInterval(timer);
    api.close().then(() => process.exit(0));
  });
}
