// `npm run demo`: one real multi-turn session of bin/agent against a SCRIPTED model (the project's
// fake Messages API). No API key needed: everything but the model is real — the process, the
// stream-json protocol, the tools, the files they write.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { onLines } from './lib.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const { startFakeApi } = await import(pathToFileURL(join(root, 'dist/test/fake-api/server.js')).href);
const cwd = realpathSync(mkdtempSync(join(tmpdir(), 'agent-demo-')));
const notes = join(cwd, 'notes.md');

// What the scripted "model" says, turn by turn.
const script = [
  {
    content: [
      { type: 'text', text: 'Let me look around first.' },
      { type: 'tool_use', name: 'Bash', input: { command: 'pwd && uname -s', description: 'Show where we are' } },
    ],
  },
  {
    content: [
      {
        type: 'tool_use',
        name: 'Write',
        input: { file_path: notes, content: '# Notes\n\nThe demo agent was here.\n' },
      },
    ],
  },
  { content: [{ type: 'tool_use', name: 'Grep', input: { pattern: 'demo agent', output_mode: 'content' } }] },
  { content: [{ type: 'text', text: `I wrote ${notes} and checked it with Grep. Done.` }] },
];
const api = await startFakeApi(script);

const dim = (s) => `\x1b[2m${s}\x1b[0m`;
const bold = (s) => `\x1b[1m${s}\x1b[0m`;
console.log(bold('agent-runtime demo — the model is SCRIPTED (a fake Messages API); everything else is real.'));
console.log(dim(`working directory: ${cwd}\n`));

const child = spawn(
  join(root, 'bin/agent'),
  ['--input-format', 'stream-json', '--output-format', 'stream-json', '--verbose', '--permission-mode', 'acceptEdits'],
  {
    cwd,
    env: { ...process.env, ANTHROPIC_BASE_URL: api.url, ANTHROPIC_API_KEY: 'demo-key-not-real' },
    stdio: ['pipe', 'pipe', 'inherit'],
  },
);
const prompt = {
  type: 'user',
  session_id: '',
  parent_tool_use_id: null,
  message: { role: 'user', content: [{ type: 'text', text: 'Leave a note in this folder, then check it is there.' }] },
};
console.log(`${bold('host → agent')}  ${JSON.stringify(prompt)}\n`);
child.stdin.end(`${JSON.stringify(prompt)}\n`);

onLines(child.stdout, (line) => {
  console.log(`${bold('agent → host')}  ${describe(JSON.parse(line))}`);
  console.log(dim(`              ${line.length > 220 ? `${line.slice(0, 220)}…` : line}`));
});
child.on('close', async (code) => {
  await api.close();
  console.log(`\n${bold('exit code')} ${code}; the model was called ${api.requests.length} times.`);
  console.log(`${bold('notes.md on disk:')}\n${readFileSync(notes, 'utf8')}`);
});

function describe(m) {
  if (m.type === 'system')
    return `system/${m.subtype}${m.subtype === 'init' ? ` (model ${m.model}, tools ${m.tools.join(', ')})` : ''}`;
  if (m.type === 'assistant')
    return `assistant [scripted]: ${m.message.content.map((b) => (b.type === 'text' ? JSON.stringify(b.text) : `${b.type} ${b.name ?? ''} ${JSON.stringify(b.input ?? '')}`)).join(' + ')}`;
  if (m.type === 'user') {
    const r = m.message.content[0];
    const text = typeof r.content === 'string' ? r.content : JSON.stringify(r.content);
    return `tool result${r.is_error ? ' (error)' : ''}: ${JSON.stringify(text.slice(0, 120))}`;
  }
  if (m.type === 'result')
    return `result/${m.subtype}: ${JSON.stringify(m.result)} (${m.num_turns} turns, $${m.total_cost_usd.toFixed(5)})`;
  return m.type;
}
