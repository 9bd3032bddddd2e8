// Slash commands end to end: markdown commands (project, user, namespaced) with arguments, shell
// lines and file references under the session's permissions; the headless built-ins; and the lists
// a host sees (system/init's slash_commands, the SDK's supportedCommands()).
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { query } from '@anthropic-ai/claude-agent-sdk';
import { describe, expect, it } from 'vitest';
import { lastUserText, text, type RecordedRequest } from '../fake-api/server.js';
import {
  DEFERRED_REMINDER,
  startAgent,
  startFakeApi,
  STREAM_ARGS,
  tempDir,
  userLine,
  type FakeApi,
  once,
} from './harness.js';
import { promptStream, sdkOptions } from './sdkHost.js';

let api: FakeApi | undefined;

function write(path: string, body: string) {
  mkdirSync(join(path, '..'), { recursive: true });
  writeFileSync(path, body);
}

/** A project with commands, and a user config folder with one. */
function project() {
  const cwd = tempDir();
  const config = tempDir('agent-config-');
  write(
    join(cwd, '.claude/commands/review.md'),
    '---\ndescription: Review a file\nargument-hint: <file> [focus]\nallowed-tools: Bash(echo:*)\nmodel: haiku\n---\nReview $1 with focus on $2 (all: $ARGUMENTS).\n!echo shell-says-$1\nNotes: @notes.txt\n',
  );
  write(join(cwd, '.claude/commands/frontend/test.md'), 'Run the frontend tests\n');
  write(
    join(cwd, '.claude/commands/danger.md'),
    '---\ndescription: Needs a shell line it may not run\n---\n!touch made-by-command\nDone?\n',
  );
  write(join(cwd, 'notes.txt'), 'NOTES-CONTENT\n');
  write(join(config, 'commands/hello.md'), '---\ndescription: Say hello\n---\nSay hello to $ARGUMENTS\n');
  return { cwd, config };
}

const results = (p: ReturnType<typeof startAgent>) => p.json().filter((m) => m.type === 'result');

async function session(cwd: string, config: string, inputs: string[], extraArgs: string[] = [], on = api) {
  const p = startAgent({
    api: on,
    cwd,
    env: { CLAUDE_CONFIG_DIR: config },
    args: [...STREAM_ARGS, '--model', 'claude-sonnet-4-5', ...extraArgs],
  });
  /** How many requests the API had seen when each input's result came. */
  const requestsAfter: number[] = [];
  for (let i = 0; i < inputs.length; i++) {
    p.sendRaw(userLine(inputs[i]));
    await p.waitFor(() => results(p).length > i, 20_000);
    requestsAfter.push(on!.requests.length);
  }
  p.endInput();
  await p.exited;
  return { msgs: p.json(), results: results(p), stderr: p.stderr(), requestsAfter };
}

/**
 * One session for three tests (the inputs that fail before or without a model call, then a path
 * that reaches it), made by whichever asks first; each test reads its own inputs' results and the
 * requests seen when they came.
 */
const ERRORS_INPUTS = ['/compact', '/danger', '/nope arg', '/tmp/x is a path'];
const errorsSession = once(runErrorsSession);

async function runErrorsSession() {
  const { cwd, config } = project();
  const own = await startFakeApi([text('a path')]);
  try {
    const r = await session(cwd, config, ERRORS_INPUTS, [], own);
    expect(r.results, `the shared session's results; stderr: ${r.stderr}`).toHaveLength(ERRORS_INPUTS.length);
    return { ...r, requests: own.requests };
  } finally {
    await own.close();
  }
}

/** The shared session's result for `input`, and how many requests had gone out by then. */
async function errorsTurn(input: string) {
  const r = await errorsSession();
  const i = ERRORS_INPUTS.indexOf(input);
  return { result: r.results[i]!, requestsBy: r.requestsAfter[i]!, requests: r.requests };
}

describe('markdown slash commands', () => {
  it('/review expands $1, $2, $ARGUMENTS, a `!` line (allowed by its allowed-tools) and @file, on its own model; namespaced and user commands are listed in init', async () => {
    const { cwd, config } = project();
    api = await startFakeApi([text('reviewed'), text('hello back'), text('tests run')]);
    const r = await session(cwd, config, ['/review src/a.ts speed', '/hello world', '/frontend:test']);
    expect(r.results.map((x) => (x.is_error ? x.errors : false))).toEqual([false, false, false]);
    const first = lastUserText(api.requests[0]);
    expect(first).toContain('Review src/a.ts with focus on speed (all: src/a.ts speed).');
    expect(first).toContain('shell-says-src/a.ts');
    expect(first).not.toContain('!echo');
    expect(first).toContain('<file path="notes.txt">\nNOTES-CONTENT');
    expect(api.requests[0].body.model).toBe('claude-haiku-5-5'); // the command's model, for its turn only
    expect(lastUserText(api.requests[1])).toContain('Say hello to world');
    expect(api.requests[1].body.model).toBe('claude-sonnet-4-5');
    expect(lastUserText(api.requests[2])).toContain('Run the frontend tests');
    const init = r.msgs.find((m) => m.type === 'system' && m.subtype === 'init')!;
    expect(init.slash_commands).toEqual(
      expect.arrayContaining([
        'compact',
        'clear',
        'cost',
        'context',
        'model',
        'help',
        'review',
        'frontend:test',
        'hello',
      ]),
    );
  });

  it('a `!` line the session would have to ask about is not run: the command fails clearly and nothing reaches the model', async () => {
    // The shared session's second input: no request before it (only /compact, refused, came first).
    const { result, requestsBy } = await errorsTurn('/danger');
    expect(result.is_error).toBe(true);
    expect(result.errors.join(' ')).toMatch(/\/danger: `!touch made-by-command` was not run/);
    expect(requestsBy).toBe(0);
  });

  it('an unknown /name is an error result naming it; a path such as /tmp/x goes to the model as typed', async () => {
    const unknown = await errorsTurn('/nope arg');
    expect(unknown.result.is_error).toBe(true);
    expect(unknown.result.errors[0]).toContain('Unknown slash command: /nope');
    expect(unknown.requestsBy).toBe(0);
    // As typed, then the deferred-tools reminder of the session's first request.
    const path = await errorsTurn('/tmp/x is a path');
    expect(path.result).toMatchObject({ is_error: false, result: 'a path' });
    expect(lastUserText(path.requests[0]!)).toBe(`/tmp/x is a path\n${DEFERRED_REMINDER}`);
    expect(path.requests).toHaveLength(1);
  });
});

describe('built-in commands', () => {
  it('/help, /model, /cost, /context answer locally; /clear empties the history; /compact summarises with the given instructions', async () => {
    const { cwd, config } = project();
    const script = (req: RecordedRequest) => {
      const last = lastUserText(req);
      if (last.includes('Additional instructions: keep the numbers')) return text('SUMMARY-OF-IT');
      return text(`reply ${req.body.messages.length}`);
    };
    api = await startFakeApi(script);
    const r = await session(cwd, config, [
      '/help',
      '/model haiku',
      'first',
      '/cost',
      '/context',
      '/compact keep the numbers',
      'after compact',
      '/clear',
      'after clear',
    ]);
    const texts = r.results.map((x) => (x.is_error ? `ERR ${x.errors.join(' ')}` : x.result));
    expect(texts[0]).toContain('/review <file> [focus] — Review a file (project)');
    expect(texts[0]).toContain('/compact <optional custom summarization instructions>');
    expect(texts[1]).toBe('Model set to claude-haiku-5-5.');
    expect(api.requests[0].body.model).toBe('claude-haiku-5-5');
    expect(texts[3]).toMatch(/^Total cost: \$0\.\d{4}$/);
    expect(Number(texts[3].slice(13))).toBeGreaterThan(0);
    expect(texts[4]).toMatch(/Context usage · claude-haiku-5-5: [\d,]+ \/ [\d,]+ tokens/);
    expect(texts[4]).toContain('Messages:');
    expect(texts[5]).toBe('Conversation compacted.');
    expect(
      r.msgs.some(
        (m) => m.type === 'system' && m.subtype === 'compact_boundary' && m.compact_metadata?.trigger === 'manual',
      ),
    ).toBe(true);
    // Told around the summary call, as the reference tells /compact (system/status).
    expect(
      r.msgs.filter((m) => m.type === 'system' && m.subtype === 'status').map((m) => [m.status, m.compact_result]),
    ).toEqual([
      ['compacting', undefined],
      [null, 'success'],
    ]);
    // After /compact the next request starts from the summary.
    const afterCompact = api.requests[2].body.messages;
    expect(JSON.stringify(afterCompact[0])).toContain('SUMMARY-OF-IT');
    expect(JSON.stringify(afterCompact)).not.toContain('reply 1');
    expect(texts[7]).toBe('Conversation cleared.');
    expect(api.requests[3].body.messages).toHaveLength(1);
    expect(api.requests).toHaveLength(4);
  });

  it('/compact with nothing to compact is a clear error, not a model call', async () => {
    // The shared session's first input.
    const { result, requestsBy } = await errorsTurn('/compact');
    expect(result.errors[0]).toContain('/compact: not compacted: there is no conversation to compact yet');
    expect(requestsBy).toBe(0);
  });
});

describe('through the official SDK', () => {
  it('supportedCommands() and init.slash_commands list built-ins and the project commands with descriptions and argument hints; a /command prompt runs', async () => {
    const { cwd } = project();
    api = await startFakeApi([text('reviewed')]);
    const input = promptStream();
    const q = query({
      prompt: input as never,
      options: sdkOptions(api.url, cwd, { settingSources: ['project'] }) as never,
    });
    const commands = await q.supportedCommands();
    expect(commands).toEqual(
      expect.arrayContaining([
        {
          name: 'compact',
          description: expect.stringContaining('summary'),
          argumentHint: '<optional custom summarization instructions>',
          builtin: true,
        },
        { name: 'review', description: 'Review a file (project)', argumentHint: '<file> [focus]' },
        { name: 'frontend:test', description: 'Run the frontend tests (project)', argumentHint: '' },
      ]),
    );
    // settingSources ['project'] only: the user's commands are not loaded.
    expect(commands.some((c) => c.name === 'hello')).toBe(false);
    input.push('/review a.ts');
    let init: any;
    for await (const m of q) {
      if (m.type === 'system' && m.subtype === 'init') init = m;
      if (m.type === 'result') {
        expect(m.is_error).toBe(false);
        input.end();
      }
    }
    expect(init.slash_commands).toEqual(expect.arrayContaining(['review', 'frontend:test', 'help']));
    expect(lastUserText(api.requests[0])).toContain('Review a.ts with focus on');
  });
});
