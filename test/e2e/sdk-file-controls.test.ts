// File checkpoints and rewind, context usage, read_file and seed_read_state, driven through the
// official SDK's Query methods (rewindFiles, getContextUsage, readFile, seedReadState).
import { query, type Query, type SDKMessage, type SDKUserMessage } from '@anthropic-ai/claude-agent-sdk';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { lastToolResults, text, toolUse } from '../fake-api/server.js';
import { DEFERRED_BUILTINS, startFakeApi, tempDir, type FakeApi, once } from './harness.js';
import { sdkOptions } from './sdkHost.js';

let api: FakeApi | undefined;

/**
 * A streaming host: each prompt (with its uuid) goes in when the previous result came out;
 * `atEnd` runs with the live Query once every prompt has its result, then the input ends.
 */
async function host(
  cwd: string,
  turns: Array<{ uuid: string; text: string }>,
  extra: Record<string, unknown>,
  atEnd: (q: Query) => Promise<void>,
  apiUrl = api!.url,
): Promise<SDKMessage[]> {
  let wake: (() => void) | undefined;
  let released = 0;
  let done = false;
  async function* input(): AsyncGenerator<SDKUserMessage> {
    for (let i = 0; i < turns.length; i++) {
      while (released <= i) await new Promise<void>((r) => (wake = r));
      const t = turns[i]!;
      yield {
        type: 'user',
        session_id: '',
        parent_tool_use_id: null,
        uuid: t.uuid as never,
        message: { role: 'user', content: t.text },
      };
    }
    while (!done) await new Promise<void>((r) => (wake = r));
  }
  released = 1;
  const q = query({ prompt: input(), options: sdkOptions(apiUrl, cwd, extra) as never });
  const out: SDKMessage[] = [];
  let results = 0;
  for await (const m of q) {
    out.push(m);
    if (m.type !== 'result') continue;
    results++;
    if (results < turns.length) {
      released++;
      wake?.();
    } else {
      await atEnd(q);
      done = true;
      wake?.();
    }
  }
  return out;
}

/**
 * One session without file checkpointing answers the Query methods that only read it: its context
 * usage (a project CLAUDE.md, loaded through settingSources ['project']), readFile (with a Read deny
 * rule), and a rewindFiles that must refuse. Each is asked once the prompt has its result, in that
 * order; each check reads its own answer. Made once, by the first check that reads it.
 */
const shared = once(sharedSession);

async function sharedSession() {
  const cwd = tempDir();
  mkdirSync(join(cwd, '.git')); // the memory walk stops here: no folder above it counts
  writeFileSync(join(cwd, 'CLAUDE.md'), 'Memory: '.padEnd(4000, 'x'));
  writeFileSync(join(cwd, 'notes.txt'), 'hello notes\n');
  writeFileSync(join(cwd, 'bin.dat'), Buffer.from([0xff, 0x00, 0x41]));
  mkdirSync(join(cwd, 'secret'));
  writeFileSync(join(cwd, 'secret', 'key.txt'), 'top secret');
  const outside = join(tempDir(), 'elsewhere.txt');
  writeFileSync(outside, 'not yours');
  const own = await startFakeApi([text('answer '.repeat(200))]);
  const got: Record<string, any> = {};
  try {
    const extra = { settingSources: ['project'], disallowedTools: ['Read(./secret/**)'] };
    const out = await host(
      cwd,
      [{ uuid: randomUUID(), text: 'hello' }],
      extra,
      async (q) => {
        got.usage = await q.getContextUsage();
        got.text = await q.readFile('notes.txt');
        got.cut = await q.readFile(join(cwd, 'notes.txt'), { maxBytes: 5 });
        got.b64 = await q.readFile('bin.dat', { encoding: 'base64' });
        got.lossy = await q.readFile('bin.dat');
        got.denied = await q.readFile('secret/key.txt');
        got.outside = await q.readFile(outside);
        got.missing = await q.readFile('nope.txt');
        got.rewindError = await q.rewindFiles(randomUUID()).catch((e: Error) => e);
      },
      own.url,
    );
    expect(
      out.filter((m) => m.type === 'result').map((m) => m.subtype),
      'the shared session without checkpointing',
    ).toEqual(['success']);
    expect(own.requests, 'requests of the shared session without checkpointing').toHaveLength(1);
  } finally {
    await own.close();
  }
  return { cwd, got };
}

describe('file checkpoints and rewind_files', () => {
  it('restores every file to its state at a user message (created files deleted), dry_run only reports, files_persisted names the copies', async () => {
    const cwd = tempDir();
    const a = join(cwd, 'a.txt');
    const b = join(cwd, 'b.txt');
    const c = join(cwd, 'sub', 'c.txt');
    writeFileSync(b, 'b1\nb2\n');
    api = await startFakeApi([
      toolUse('Write', { file_path: a, content: 'one\n' }, 'w1'),
      toolUse('Read', { file_path: b }, 'r1'),
      toolUse('Edit', { file_path: b, old_string: 'b2', new_string: 'B2\nb3' }, 'e1'),
      text('turn one done'),
      toolUse('Edit', { file_path: a, old_string: 'one', new_string: 'two' }, 'e2'),
      toolUse('Write', { file_path: c, content: 'new file\n' }, 'w2'),
      text('turn two done'),
    ]);
    const [u1, u2] = [randomUUID(), randomUUID()];
    const answers: Record<string, unknown> = {};
    const out = await host(
      cwd,
      [
        { uuid: u1, text: 'first changes' },
        { uuid: u2, text: 'second changes' },
      ],
      { enableFileCheckpointing: true, permissionMode: 'acceptEdits' },
      async (q) => {
        expect(readFileSync(a, 'utf8')).toBe('two\n');
        answers.dry = await q.rewindFiles(u2, { dryRun: true });
        expect(readFileSync(a, 'utf8')).toBe('two\n');
        expect(existsSync(c)).toBe(true);
        answers.toU2 = await q.rewindFiles(u2);
        expect(readFileSync(a, 'utf8')).toBe('one\n');
        expect(existsSync(c)).toBe(false);
        expect(readFileSync(b, 'utf8')).toBe('b1\nB2\nb3\n');
        answers.toU1 = await q.rewindFiles(u1);
        expect(existsSync(a)).toBe(false);
        expect(readFileSync(b, 'utf8')).toBe('b1\nb2\n');
        answers.unknown = await q.rewindFiles(randomUUID());
      },
    );
    expect(answers.dry).toMatchObject({ canRewind: true, filesChanged: [a, c], insertions: 1, deletions: 2 });
    expect(answers.toU2).toMatchObject({ canRewind: true, filesChanged: [a, c] });
    expect((answers.toU1 as { filesChanged: string[] }).filesChanged.sort()).toEqual([a, b].sort());
    expect(answers.unknown).toMatchObject({ canRewind: false, error: expect.stringMatching(/No file checkpoint/) });
    const persisted = out.filter(
      (m) => m.type === 'system' && (m as { subtype?: string }).subtype === 'files_persisted',
    ) as any[];
    expect(persisted).toHaveLength(2);
    expect(persisted[0].files.map((f: any) => f.filename)).toEqual([b]); // a.txt did not exist yet: nothing to copy
    expect(persisted[1].files.map((f: any) => f.filename)).toEqual([a]);
    expect(persisted[1].files[0].file_id).toMatch(/^[0-9a-f]{64}$/);
  });

  it('a NotebookEdit is checkpointed too: rewind restores the notebook', async () => {
    const cwd = tempDir();
    const nb = join(cwd, 'n.ipynb');
    const original = JSON.stringify(
      {
        cells: [
          { cell_type: 'code', id: 'c1', metadata: {}, source: ['print(1)'], outputs: [], execution_count: null },
        ],
        metadata: {},
        nbformat: 4,
        nbformat_minor: 5,
      },
      null,
      1,
    );
    writeFileSync(nb, original);
    api = await startFakeApi([
      toolUse('Read', { file_path: nb }, 'r1'),
      toolUse('NotebookEdit', { notebook_path: nb, cell_id: 'c1', new_source: 'print(2)' }, 'n1'),
      text('edited'),
    ]);
    const u1 = randomUUID();
    let answer: unknown;
    await host(
      cwd,
      [{ uuid: u1, text: 'edit the notebook' }],
      { enableFileCheckpointing: true, permissionMode: 'acceptEdits' },
      async (q) => {
        expect(readFileSync(nb, 'utf8')).toContain('print(2)');
        answer = await q.rewindFiles(u1);
      },
    );
    expect(answer).toMatchObject({ canRewind: true, filesChanged: [nb] });
    expect(readFileSync(nb, 'utf8')).toBe(original);
  });

  it('a resumed session can rewind to a message of an earlier run (checkpoints are kept in the transcript)', async () => {
    const cwd = tempDir();
    const a = join(cwd, 'a.txt');
    api = await startFakeApi([
      toolUse('Write', { file_path: a, content: 'from run one\n' }, 'w1'),
      text('written'),
      text('second run'),
    ]);
    const u1 = randomUUID();
    const config = tempDir('agent-config-');
    const opts = (extra: Record<string, unknown>) => ({
      enableFileCheckpointing: true,
      permissionMode: 'acceptEdits',
      ...extra,
    });
    const withConfig = (o: Record<string, unknown>) => {
      const full = sdkOptions(api!.url, cwd, o);
      full.env.CLAUDE_CONFIG_DIR = config;
      return full;
    };
    const first = await host(
      cwd,
      [{ uuid: u1, text: 'write it' }],
      { ...opts({}), env: withConfig({}).env },
      async () => {},
    );
    const sessionId = first.find((m) => m.type === 'result')!.session_id;
    expect(readFileSync(a, 'utf8')).toBe('from run one\n');
    let answer: unknown;
    await host(
      cwd,
      [{ uuid: randomUUID(), text: 'and now' }],
      { ...opts({ resume: sessionId }), env: withConfig({}).env },
      async (q) => {
        answer = await q.rewindFiles(u1);
      },
    );
    expect(answer).toMatchObject({ canRewind: true, filesChanged: [a] });
    expect(existsSync(a)).toBe(false);
  });

  it('without enableFileCheckpointing, rewindFiles fails loudly and says how to turn it on', async () => {
    const error = (await shared()).got.rewindError;
    expect(error).toBeInstanceOf(Error);
    expect(String(error)).toMatch(/file checkpointing is off.*enableFileCheckpointing/);
  });
});

describe('get_context_usage, read_file, seed_read_state', () => {
  it('getContextUsage counts the system prompt, tools, memory files and messages against the model window', async () => {
    const {
      cwd,
      got: { usage },
    } = await shared();
    const byId = Object.fromEntries(usage.categories.map((c: any) => [c.id, c]));
    expect(Object.keys(byId)).toEqual(
      expect.arrayContaining(['system_prompt', 'system_tools', 'memory_files', 'messages', 'free_space']),
    );
    expect(byId.memory_files.tokens).toBeGreaterThanOrEqual(1000);
    expect(byId.messages.tokens).toBeGreaterThan(300);
    expect(usage.memoryFiles).toEqual([{ path: join(cwd, 'CLAUDE.md'), type: 'Project', tokens: expect.any(Number) }]);
    // The default model's window (claude-opus-5-5: 1M, as the reference reports it).
    expect(usage.maxTokens).toBe(1_000_000);
    const used = usage.categories.filter((c: any) => c.kind === 'used').reduce((n: number, c: any) => n + c.tokens, 0);
    expect(usage.totalTokens).toBe(used);
    // Deferred rows (the built-ins that wait behind ToolSearch) are outside the window.
    expect(byId.system_tools_deferred).toMatchObject({ kind: 'deferred', name: 'System tools (deferred)' });
    expect(usage.deferredBuiltinTools.map((t: any) => t.name).sort()).toEqual([...DEFERRED_BUILTINS].sort());
    const all = usage.categories
      .filter((c: any) => c.kind !== 'deferred')
      .reduce((n: number, c: any) => n + c.tokens, 0);
    expect(all).toBe(usage.maxTokens);
    expect(usage.apiUsage).toMatchObject({ input_tokens: expect.any(Number), output_tokens: expect.any(Number) });
    expect(usage.gridRows).toHaveLength(10);
  });

  it('readFile answers within the read permissions: text, base64, truncated; a denied or outside path is refused (null)', async () => {
    const { cwd, got } = await shared();
    expect(got.text).toEqual({ contents: 'hello notes\n', absPath: join(cwd, 'notes.txt'), lossy: false });
    expect(got.cut).toMatchObject({ contents: 'hello', truncated: true });
    expect(got.b64).toMatchObject({ contents: Buffer.from([0xff, 0x00, 0x41]).toString('base64'), encoding: 'base64' });
    expect(got.lossy).toMatchObject({ lossy: true });
    expect(got.denied).toBeNull();
    expect(got.outside).toBeNull();
    expect(got.missing).toBeNull();
  });

  it('seedReadState lets a later Edit through without a Read; a seed older than the file is skipped and Edit still refuses', async () => {
    const cwd = tempDir();
    const fresh = join(cwd, 'fresh.txt');
    const stale = join(cwd, 'stale.txt');
    writeFileSync(fresh, 'alpha\n');
    writeFileSync(stale, 'beta\n');
    api = await startFakeApi([
      toolUse('Edit', { file_path: fresh, old_string: 'alpha', new_string: 'ALPHA' }, 'e1'),
      toolUse('Edit', { file_path: stale, old_string: 'beta', new_string: 'BETA' }, 'e2'),
      text('done'),
    ]);
    const seedFirst = async (q: Query) => {
      await q.seedReadState(fresh, Math.floor(statSync(fresh).mtimeMs));
      await q.seedReadState(stale, Math.floor(statSync(stale).mtimeMs) - 10_000);
    };
    // Seeds go in before the prompt: the prompt waits for the first control round trip.
    let wake: (() => void) | undefined;
    let seeded = false;
    async function* input(): AsyncGenerator<SDKUserMessage> {
      while (!seeded) await new Promise<void>((r) => (wake = r));
      yield { type: 'user', session_id: '', parent_tool_use_id: null, message: { role: 'user', content: 'edit both' } };
    }
    const q = query({ prompt: input(), options: sdkOptions(api.url, cwd, { permissionMode: 'acceptEdits' }) as never });
    await seedFirst(q);
    seeded = true;
    wake?.();
    for await (const _ of q);
    expect(readFileSync(fresh, 'utf8')).toBe('ALPHA\n');
    expect(readFileSync(stale, 'utf8')).toBe('beta\n');
    const results = [...lastToolResults(api.requests[1]), ...lastToolResults(api.requests[2])];
    expect(results.find((r) => r.tool_use_id === 'e1')?.is_error).toBeFalsy();
    expect(results.find((r) => r.tool_use_id === 'e2')).toMatchObject({ is_error: true });
  });
});
