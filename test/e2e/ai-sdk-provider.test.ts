// bin/agent under a popular third-party host: the Vercel AI SDK provider ai-sdk-provider-claude-code
// (which drives the official Claude Agent SDK), called as an app calls a language model. What the
// provider reads off the wire reaches the app: the permission prompt's labels, the cost metadata and
// the terminal reason, and an API error told once. Each case is one row of CASES, so a new one
// (acceptEdits with `touch`) is one more row.
import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { claudeCode } from 'ai-sdk-provider-claude-code';
import { afterEach, describe, expect, it } from 'vitest';
import { badRequest, type FakeApi, type ScriptedReply, startFakeApi, text, toolUse } from '../fake-api/server.js';
import { AGENT_BIN, tempDir } from './harness.js';

let api: FakeApi | undefined;
const dirs: string[] = [];
const dir = (prefix: string) => {
  const d = tempDir(prefix);
  dirs.push(d);
  return d;
};
afterEach(async () => {
  await api?.close();
  api = undefined;
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

interface Ask {
  toolName: string;
  displayName?: string;
  description?: string;
  blockedPath?: string;
  decisionReason?: string;
}

/** One generateText-style call through the provider; returns what the app sees and the prompts it was asked. */
async function generate(script: ScriptedReply[], cwd: string, settings: Record<string, unknown> = {}) {
  api = await startFakeApi(script);
  const asks: Ask[] = [];
  const model = claudeCode('sonnet', {
    pathToClaudeCodeExecutable: AGENT_BIN,
    cwd,
    env: {
      ANTHROPIC_BASE_URL: api.url,
      ANTHROPIC_API_KEY: 'test-key',
      AGENT_MAX_RETRIES: '1',
      CLAUDE_CONFIG_DIR: dir('agent-aisdk-config-'),
    },
    streamingInput: 'always',
    canUseTool: async (toolName: string, input: Record<string, unknown>, opts: Record<string, unknown>) => {
      asks.push({
        toolName,
        displayName: opts.displayName as string | undefined,
        description: opts.description as string | undefined,
        blockedPath: opts.blockedPath as string | undefined,
        decisionReason: opts.decisionReason as string | undefined,
      });
      return { behavior: 'allow' as const, updatedInput: input };
    },
    ...settings,
  } as never);
  const out = await model.doGenerate({ prompt: [{ role: 'user', content: [{ type: 'text', text: 'go' }] }] } as never);
  const meta = (out.providerMetadata?.['claude-code'] ?? {}) as Record<string, unknown>;
  return { out, meta, asks };
}

interface Case {
  name: string;
  script: (cwd: string) => ScriptedReply[];
  settings?: Record<string, unknown>;
  check: (r: Awaited<ReturnType<typeof generate>> & { error: unknown }, cwd: string) => void;
}

const CASES: Case[] = [
  {
    name: 'a permission prompt carries the labels an app shows: display name, description, decision reason',
    script: () => [
      toolUse('Bash', { command: 'touch made.txt', description: 'Create made.txt' }),
      toolUse('Write', { file_path: '/etc/agent-aisdk-test.txt', content: 'x' }),
      text('done'),
    ],
    check: ({ asks, meta }, cwd) => {
      expect(asks).toHaveLength(2);
      expect(asks[0]).toMatchObject({ toolName: 'Bash', displayName: 'Bash', description: 'Create made.txt' });
      expect(asks[1]).toMatchObject({
        toolName: 'Write',
        displayName: 'Write',
        description: '/etc/agent-aisdk-test.txt',
      });
      expect(asks[1].decisionReason).toBeTruthy();
      expect(existsSync(join(cwd, 'made.txt'))).toBe(true);
      expect(meta.terminalReason).toBe('completed');
    },
  },
  {
    name: 'the cost metadata is the model table price: 2,500 input and 500 output tokens on Sonnet 5.5 cost $0.010',
    script: () => [text('priced', { usage: { input_tokens: 2500, output_tokens: 500 } })],
    check: ({ out, meta }) => {
      expect(out.content).toEqual([expect.objectContaining({ type: 'text', text: 'priced' })]);
      expect(meta.costUsd).toBeCloseTo(0.01, 10);
      expect((meta.modelUsage as Record<string, { contextWindow: number }>)['claude-sonnet-5-5'].contextWindow).toBe(
        1_000_000,
      );
      expect(meta.terminalReason).toBe('completed');
      expect(meta.timeToRequestMs).toEqual(expect.any(Number));
    },
  },
  {
    name: 'acceptEdits: touch and mkdir inside the working directory run without a prompt; chmod is still asked about',
    settings: { permissionMode: 'acceptEdits' },
    script: () => [
      toolUse('Bash', { command: 'mkdir -p notes && touch notes/today.md', description: 'Make a notes file' }),
      toolUse('Bash', { command: 'chmod +x notes/today.md', description: 'Make it executable' }),
      text('done'),
    ],
    check: ({ asks, meta }, cwd) => {
      expect(existsSync(join(cwd, 'notes/today.md'))).toBe(true);
      expect(asks.map((a) => a.description)).toEqual(['Make it executable']);
      expect(meta.terminalReason).toBe('completed');
    },
  },
  {
    name: 'an API error reaches the app once: the result line reports it, stderr does not repeat it',
    script: () => [badRequest('the model refused X')],
    check: ({ error }) => {
      expect(String(error)).toContain('API Error: 400 the model refused X');
      expect(String(error)).not.toContain('stderr (tail)');
    },
  },
];

describe('ai-sdk-provider-claude-code drives bin/agent', () => {
  for (const c of CASES) {
    it(c.name, async () => {
      const cwd = dir('agent-aisdk-');
      // An error result makes the provider throw (its metadata stays on the wire then).
      const r = await generate(c.script(cwd), cwd, c.settings).then(
        (ok) => ({ ...ok, error: undefined as unknown }),
        (error: unknown) => ({ out: undefined, meta: {}, asks: [], error }),
      );
      c.check(r as never, cwd);
    });
  }
});
