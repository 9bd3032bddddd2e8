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

async function session(cwd: string, config: string, inputs: string[], extraArgs: string[] = []) {
  const p = startAgent({
    api,
    cwd,
    env: { CLAUDE_CONFIG_DIR: config },
    args: [...STREAM_ARGS, '--model', 'claude-sonnet-4-5', ...extraArgs],
  });
  for (let i = 0; i < inputs.length; i++) {
    p.sendRaw(userLine(inputs[i]));
    await p.waitFor(() => results(p).length > i, 20_000);
  }
  p.endInput();
  await p.exited;
  return { msgs: p.json(), results: results(p), stderr: p.stderr() };
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
    const { cwd, config } = project();
    api = await startFakeApi([text('never')]);
    const r = await session(cwd, config, ['/danger']);
    expect(r.results[0].is_error).toBe(true);
    expect(r.results[0].errors.join(' ')).toMatch(/\/danger: `!touch made-by-command` was not run/);
    expect(api.requests).toHaveLength(0);
  });

  it('an unknown /name is an error result naming it; a path such as /tmp/x goes to the model as typed', async () => {
    const { cwd, config } = project();
    api = await startFakeApi([text('a path')]);
    const r = await session(cwd, config, ['/nope arg', '/tmp/x is a path']);
    expect(r.results[0].is_error).toBe(true);
    expect(r.results[0].errors[0]).toContain('Unknown slash command: /nope');
    // As typed, then the deferred-tools reminder of the session's first request.
    expect(lastUserText(api.requests[0])).toBe(`/tmp/x is a path\n${DEFERRED_REMINDER}`);
    expect(api.requests).toHaveLength(1);
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
    const { cwd, config } = project();
    api = await startFakeApi([text('never')]);
    const r = await session(cwd, config, ['/compact']);
    expect(r.results[0].errors[0]).toContain('/compact: not compacted: there is no conversation to compact yet');
    expect(api.requests).toHaveLength(0);
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
