// The tool-call contract (tools/tool.ts, tools/toolCall.ts): a tool declares what a call touches,
// a call is validated once into a prepared call, and the loop and permissions read the prepared
// call, never the tool's name. The proof: two file tools made here, known to no file in src/, are
// held by the same path rules, modes and working directories as Read and Edit.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createPermissionState } from '../../../src/permissions/index.js';
import { type AskHostRequest, type PipelineDeps, runToolUse } from '../../../src/loop/toolPipeline.js';
import { ToolExecutor } from '../../../src/loop/toolBatch.js';
import { BashTool } from '../../../tools/bash.js';
import { EditTool } from '../../../tools/edit.js';
import { ReadTool } from '../../../tools/read.js';
import { prepareCall } from '../../../tools/toolCall.js';
import { defineTool, type Tool, type ToolContext } from '../../../tools/tool.js';
import { loopConfig } from '../loop/loopHarness.js';

let dir: string;
const wrote: string[] = [];
let parses = 0;

/** Counts every validation of its input, so a test can see a call is validated once. */
const scribbleInput = z.object({ file_path: z.string(), text: z.string() }).transform((v) => (parses++, v));

/** A new edit tool: all it tells the runtime is in its own definition. */
const Scribble = defineTool({
  name: 'Scribble',
  description: 'appends text to a file',
  inputSchema: scribbleInput,
  isReadOnly: () => false,
  isConcurrencySafe: () => false,
  kind: 'edit',
  access: (input) => ({ paths: [input.file_path] }),
  label: (input) => `Scribble on ${input.file_path}`,
  describedBy: ['file_path'],
  async *call(input) {
    wrote.push(input.file_path);
    return { content: 'ok' };
  },
}) as Tool;

let readOnlyAsked = 0;

/** A new read tool; counts how often it is asked whether a call only reads. */
const Peek = defineTool({
  name: 'Peek',
  description: 'shows a file',
  inputSchema: z.object({ file_path: z.string() }),
  isReadOnly: () => (readOnlyAsked++, true),
  isConcurrencySafe: () => true,
  kind: 'read',
  access: (input) => ({ paths: [input.file_path] }),
  async *call() {
    return { content: 'seen' };
  },
}) as Tool;

function perms(o: { mode?: 'default' | 'acceptEdits' | 'dontAsk'; allow?: string[]; deny?: string[] } = {}) {
  return createPermissionState({
    mode: o.mode ?? 'default',
    allow: o.allow ?? [],
    deny: o.deny ?? [],
    ask: [],
    additionalDirectories: [],
    cwd: dir,
    allowBypass: false,
  });
}

function ctx(): ToolContext {
  return {
    cwd: dir,
    signal: new AbortController().signal,
    sessionId: 's',
    readFiles: new Map(),
    scratchDir: dir,
    toolUseId: 't',
  };
}

async function run(name: string, input: unknown, deps: Omit<PipelineDeps, 'tools'>) {
  const gen = runToolUse({ id: 't', name, input }, ctx(), { tools: [Scribble, Peek], ...deps });
  for (;;) {
    const step = await gen.next();
    if (step.done) return step.value;
  }
}

const textOf = (out: Awaited<ReturnType<typeof run>>) => String(out.toolResult.content);

beforeAll(() => {
  dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'contract-')));
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

describe('the tool contract', () => {
  it('a prepared call carries the validated input, what it touches and a label', () => {
    const bash = prepareCall(BashTool as Tool, { command: 'npm test' });
    expect(bash.ok && bash.call).toMatchObject({
      name: 'Bash',
      kind: 'execute',
      access: { command: 'npm test', leavesSandbox: false },
      label: 'Run: npm test',
      readOnly: false,
    });
    const edit = prepareCall(EditTool as Tool, { file_path: '/r/src/a.ts', old_string: 'a', new_string: 'b' });
    expect(edit.ok && edit.call).toMatchObject({
      kind: 'edit',
      access: { paths: ['/r/src/a.ts'] },
      label: 'Edit /r/src/a.ts',
    });
    const read = prepareCall(ReadTool as Tool, { file_path: '/r/a' });
    expect(read.ok && read.call).toMatchObject({ kind: 'read', readOnly: true, concurrencySafe: true });
    const bad = prepareCall(ReadTool as Tool, { path: 1 });
    expect(bad.ok).toBe(false);
    expect(!bad.ok && String(bad.result.content)).toContain('The required parameter `file_path` is missing');
  });

  it('a new edit tool is held by Edit deny rules, asks by default, runs under acceptEdits, and its own rules allow it', async () => {
    const inside = path.join(dir, 'notes.txt');
    const secret = path.join(dir, 'secret', 'key');
    const outside = path.join(os.tmpdir(), 'elsewhere.txt');

    const denied = await run(
      'Scribble',
      { file_path: secret, text: 'x' },
      { permissions: perms({ deny: ['Edit(secret/**)'], mode: 'acceptEdits' }) },
    );
    expect(textOf(denied)).toContain(
      `Permission to use Scribble on ${secret} has been denied by the rule Edit(secret/**)`,
    );

    const asked = await run('Scribble', { file_path: inside, text: 'x' }, { permissions: perms() });
    expect(textOf(asked)).toContain(`Permission to use Scribble on ${inside} was denied: no rule allows it`);
    expect(textOf(asked)).toContain('--permission-mode acceptEdits');

    wrote.length = 0;
    await run('Scribble', { file_path: inside, text: 'x' }, { permissions: perms({ mode: 'acceptEdits' }) });
    expect(wrote).toEqual([inside]);

    // Outside the working directories even acceptEdits asks, and the ask names the blocked path.
    const requests: AskHostRequest[] = [];
    await run(
      'Scribble',
      { file_path: outside, text: 'x' },
      {
        permissions: perms({ mode: 'acceptEdits' }),
        askHost: async (req) => (requests.push(req), { behavior: 'deny', message: 'no' }),
      },
    );
    expect(requests[0]).toMatchObject({
      tool_name: 'Scribble',
      // The prompt's label comes from the tool's own describedBy.
      display_name: 'Scribble',
      description: outside,
      blocked_path: `${fs.realpathSync(os.tmpdir())}/elsewhere.txt`,
    });

    wrote.length = 0;
    await run('Scribble', { file_path: inside, text: 'x' }, { permissions: perms({ allow: ['Scribble(notes.txt)'] }) });
    expect(wrote).toEqual([inside]);
  });

  it('a new read tool runs inside the working directories and is held by Read deny rules', async () => {
    readOnlyAsked = 0;
    const ok = await run('Peek', { file_path: path.join(dir, 'a.txt') }, { permissions: perms() });
    expect(textOf(ok)).toBe('seen');
    // Asked once, when the call was prepared: the permission decision reads the prepared answer.
    expect(readOnlyAsked).toBe(1);
    const denied = await run(
      'Peek',
      { file_path: path.join(dir, 'secret', 'k') },
      { permissions: perms({ deny: ['Read(secret/**)'] }) },
    );
    expect(textOf(denied)).toContain('has been denied by the rule Read(secret/**)');
  });

  it('a call is validated once from the batch to the tool, and again only when a hook or the host replaces its input', async () => {
    const exec = new ToolExecutor(loopConfig([Scribble, Peek]), null);
    parses = 0;
    const gen = exec.finish([{ id: 'a', name: 'Scribble', input: { file_path: path.join(dir, 'n'), text: 'x' } }]);
    for (let s = await gen.next(); !s.done; s = await gen.next());
    expect(parses).toBe(1);

    parses = 0;
    await run(
      'Scribble',
      { file_path: path.join(dir, 'n'), text: 'x' },
      {
        permissions: perms(),
        askHost: async () => ({ behavior: 'allow', updatedInput: { file_path: path.join(dir, 'm'), text: 'y' } }),
      },
    );
    expect(parses).toBe(2);
  });
});
