// The model API key never reaches what the model can read: not a Bash command's environment, not
// the transcript, not stdout.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { lastToolResults, text, toolUse } from '../fake-api/server.js';
import { runAgent, startFakeApi, STREAM_ARGS, tempDir, userLine, type FakeApi } from './harness.js';

let api: FakeApi | undefined;

const KEY = 'sk-ant-secret-value-123';

it('Bash does not see ANTHROPIC_API_KEY, and the key is in no transcript or output line', async () => {
  api = await startFakeApi([
    toolUse('Bash', { command: 'echo "key=[$ANTHROPIC_API_KEY] home=[${HOME:+set}]"' }),
    text('done'),
  ]);
  const config = tempDir('agent-config-');
  const r = await runAgent({
    api,
    args: [...STREAM_ARGS, '--allowedTools', 'Bash'],
    env: { ANTHROPIC_API_KEY: KEY, CLAUDE_CONFIG_DIR: config },
    input: userLine('show env'),
  });
  expect(r.code).toBe(0);
  const seen = JSON.stringify(lastToolResults(api.requests[1]));
  expect(seen).toContain('key=[] home=[set]');
  expect(r.stdout).not.toContain(KEY);
  expect(r.stderr).not.toContain(KEY);
  const projects = join(config, 'projects');
  const dir = join(projects, readdirSync(projects)[0]);
  const transcript = readFileSync(join(dir, readdirSync(dir)[0]), 'utf8');
  expect(transcript).toContain('key=[]');
  expect(transcript).not.toContain(KEY);
});
