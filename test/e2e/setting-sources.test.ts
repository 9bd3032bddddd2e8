// --setting-sources is parsed once at start (the session config's `sources`) and every part that
// reads a source's folder follows it: the project's agents and output styles load only when
// `project` is among the sources.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { systemText, text } from '../fake-api/server.js';
import { runAgent, startTestApi, tempDir, writeJson } from './harness.js';

function project(): { cwd: string; config: string } {
  const cwd = tempDir();
  mkdirSync(join(cwd, '.claude', 'agents'), { recursive: true });
  writeFileSync(
    join(cwd, '.claude', 'agents', 'helper.md'),
    '---\nname: helper\ndescription: Helps out\n---\nYou are the HELPER.\n',
  );
  mkdirSync(join(cwd, '.claude', 'output-styles'), { recursive: true });
  writeFileSync(
    join(cwd, '.claude', 'output-styles', 'pirate.md'),
    '---\nname: Pirate\ndescription: Talks like a pirate\n---\nAnswer like a pirate: say arr.\n',
  );
  // The user's settings pick the project's style, so a style folder left unread shows.
  const config = tempDir('agent-config-');
  writeJson(join(config, 'settings.json'), { outputStyle: 'Pirate' });
  return { cwd, config };
}

const ARGS = ['-p', 'hi', '--output-format', 'stream-json', '--verbose'];

describe.concurrent('--setting-sources', () => {
  it("without project, the project's agents and output styles are not loaded; with it they are", async (ctx) => {
    const api = await startTestApi(ctx, [text('ok'), text('ok')]);
    const p = project();
    const env = { CLAUDE_CONFIG_DIR: p.config };
    const init = (r: { json: () => Array<Record<string, any>> }) =>
      r.json().find((m) => m.type === 'system' && m.subtype === 'init')!;

    const userOnly = await runAgent({ api, cwd: p.cwd, env, args: [...ARGS, '--setting-sources', 'user'] });
    expect(userOnly.code, userOnly.stderr).toBe(0);
    expect(init(userOnly).agents).not.toContain('helper');
    expect(init(userOnly).output_style).toBe('default');
    expect(userOnly.stderr).toContain('settings outputStyle: no output style "Pirate"');
    expect(systemText(api.requests[0])).not.toContain('Output style: Pirate');

    const both = await runAgent({ api, cwd: p.cwd, env, args: [...ARGS, '--setting-sources', 'user,project'] });
    expect(both.code, both.stderr).toBe(0);
    expect(init(both).agents).toContain('helper');
    expect(init(both).output_style).toBe('Pirate');
    expect(systemText(api.requests[1])).toContain('# Output style: Pirate');
  });
});
