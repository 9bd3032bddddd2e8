// Output styles with the official SDK as host: custom styles from .claude/output-styles, the
// outputStyle setting, the initialize answer, reload_output_styles (Query.reloadOutputStyles) and
// update_settings (Query.updateSettings) switching the live session's style.
import { query, type SDKMessage } from '@anthropic-ai/claude-agent-sdk';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { systemText, text } from '../fake-api/server.js';
import { startFakeApi, tempDir, type FakeApi } from './harness.js';
import { promptStream, sdkOptions } from './sdkHost.js';

let api: FakeApi | undefined;

function style(cwd: string, file: string, body: string) {
  mkdirSync(join(cwd, '.claude', 'output-styles'), { recursive: true });
  writeFileSync(join(cwd, '.claude', 'output-styles', file), body);
}

describe('output styles through the SDK', () => {
  it('the outputStyle setting picks a custom style: initialize and init name it, its text joins the system prompt; reload finds a new file; updateSettings switches live', async () => {
    api = await startFakeApi([text('arr'), text('plain')]);
    const cwd = tempDir();
    style(
      cwd,
      'pirate.md',
      '---\nname: Pirate\ndescription: Talks like a pirate\n---\nAnswer like a pirate: say arr.\n',
    );
    mkdirSync(join(cwd, '.claude'), { recursive: true });
    writeFileSync(join(cwd, '.claude', 'settings.local.json'), JSON.stringify({ outputStyle: 'Pirate' }));
    const prompts = promptStream();
    const q = query({ prompt: prompts as never, options: sdkOptions(api.url, cwd) as never });
    const init = await q.initializationResult();
    expect(init.output_style).toBe('Pirate');
    expect(init.available_output_styles).toEqual(['default', 'Explanatory', 'Learning', 'Pirate']);

    // A style written mid-session is found by a reload (and a broken one is skipped, not fatal).
    style(
      cwd,
      'terse.md',
      '---\ndescription: Few words\nkeep-coding-instructions: true\n---\nUse as few words as you can.\n',
    );
    style(cwd, 'empty.md', '---\nname: Empty\n---\n');
    expect(await q.reloadOutputStyles()).toEqual({
      available_output_styles: ['default', 'Explanatory', 'Learning', 'Pirate', 'terse'],
    });

    const messages: SDKMessage[] = [];
    prompts.push('hello');
    let results = 0;
    for await (const m of q) {
      messages.push(m);
      if (m.type === 'result' && ++results === 1) {
        await expect(q.updateSettings('localSettings', { outputStyle: 'Nope' })).rejects.toThrow(
          /no output style "Nope" \(there are: default, Explanatory, Learning, Pirate, terse\)/,
        );
        await q.updateSettings('localSettings', { outputStyle: 'default' });
        prompts.push('again');
      }
      if (m.type === 'result' && results === 2) prompts.end();
    }
    const inits = messages.filter((m) => m.type === 'system' && m.subtype === 'init') as Array<Record<string, any>>;
    expect(inits[0].output_style).toBe('Pirate');
    expect(systemText(api.requests[0])).toContain('# Output style: Pirate\nAnswer like a pirate: say arr.');
    // keep-coding-instructions is false: the default prompt's coding sections are left out.
    expect(systemText(api.requests[0])).not.toContain('# Doing the work');
    expect(inits.at(-1)!.output_style).toBe('default');
    expect(systemText(api.requests[1])).not.toContain('Output style');
    expect(systemText(api.requests[1])).toContain('# Doing the work');
    expect(JSON.parse(readFileSync(join(cwd, '.claude', 'settings.local.json'), 'utf8'))).toEqual({
      outputStyle: 'default',
    });
  });

  it('an unknown outputStyle setting is said on stderr and the session uses default', async () => {
    api = await startFakeApi([text('ok')]);
    const cwd = tempDir();
    mkdirSync(join(cwd, '.claude'), { recursive: true });
    writeFileSync(join(cwd, '.claude', 'settings.json'), JSON.stringify({ outputStyle: 'Ghost' }));
    let stderr = '';
    const q = query({
      prompt: 'hi',
      options: sdkOptions(api.url, cwd, { stderr: (s: string) => (stderr += s) }) as never,
    });
    const msgs: SDKMessage[] = [];
    for await (const m of q) msgs.push(m);
    expect((msgs.find((m) => m.type === 'system' && m.subtype === 'init') as Record<string, any>).output_style).toBe(
      'default',
    );
    expect(stderr).toContain(
      'settings outputStyle: no output style "Ghost" (there are: default, Explanatory, Learning); using "default"',
    );
  });
});
