// Skills end to end: SKILL.md folders found, listed to the model by name and description only, the
// full text loaded by the Skill tool; the SDK's skills option selects them; init.skills and
// reload_skills report them.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { query } from '@anthropic-ai/claude-agent-sdk';
import { afterEach, describe, expect, it } from 'vitest';
import { lastToolResults, text, toolUse } from '../fake-api/server.js';
import { runAgent, startFakeApi, STREAM_ARGS, tempDir, userLine, type FakeApi } from './harness.js';
import { promptStream, sdkOptions } from './sdkHost.js';

let api: FakeApi | undefined;
afterEach(async () => {
  await api?.close();
  api = undefined;
});

function project() {
  const cwd = tempDir();
  for (const [name, desc, body] of [
    ['pdf', 'Work with PDF files', 'PDF-SKILL-BODY: use pdftotext.'],
    ['review', 'Review code changes', 'REVIEW-SKILL-BODY'],
  ]) {
    mkdirSync(join(cwd, '.claude/skills', name), { recursive: true });
    writeFileSync(join(cwd, '.claude/skills', name, 'SKILL.md'), `---\nname: ${name}\ndescription: ${desc}\n---\n${body}\n`);
  }
  return cwd;
}

describe('skills', () => {
  it('the model sees names and descriptions only; Skill loads the full text; init lists them', async () => {
    const cwd = project();
    api = await startFakeApi([toolUse('Skill', { skill: 'pdf' }, 'toolu_s'), text('done')]);
    const r = await runAgent({ api, cwd, args: [...STREAM_ARGS, '--dangerously-skip-permissions'], input: userLine('read the pdf') + '\n' });
    expect(r.code).toBe(0);
    const first = JSON.stringify(api.requests[0].body);
    const skill = api.requests[0].body.tools.find((t: any) => t.name === 'Skill');
    expect(skill.description).toContain('- pdf: Work with PDF files');
    expect(skill.description).toContain('- review: Review code changes');
    expect(first).not.toContain('PDF-SKILL-BODY');
    const [res] = lastToolResults(api.requests[1]);
    expect(res.is_error).toBeFalsy();
    expect(JSON.stringify(res.content)).toContain('PDF-SKILL-BODY: use pdftotext.');
    const init = r.stdout
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l))
      .find((m) => m.type === 'system' && m.subtype === 'init');
    expect(init.skills).toEqual(['pdf', 'review']);
    expect(init.tools).toContain('Skill');
  });

  it("the SDK's skills option selects; an unlisted skill is refused by the tool; reloadSkills() answers with what is enabled; an unknown name stops the start", async () => {
    const cwd = project();
    api = await startFakeApi([toolUse('Skill', { skill: 'review' }, 'toolu_r'), text('ok')]);
    const input = promptStream();
    const q = query({ prompt: input as never, options: sdkOptions(api.url, cwd, { settingSources: ['project'], skills: ['pdf'] }) as never });
    const reloaded = await q.reloadSkills();
    expect(reloaded.skills.map((s) => s.name)).toEqual(['pdf']);
    input.push('review it');
    let init: any;
    for await (const m of q) {
      if (m.type === 'system' && m.subtype === 'init') init = m;
      if (m.type === 'result') input.end();
    }
    expect(init.skills).toEqual(['pdf']);
    const [res] = lastToolResults(api.requests[1]);
    expect(res.is_error).toBe(true);
    expect(JSON.stringify(res.content)).toContain('Unknown skill: review. Available skills: pdf');

    let error = '';
    try {
      const bad = query({ prompt: 'hi', options: sdkOptions(api.url, cwd, { settingSources: ['project'], skills: ['nope'] }) as never });
      for await (const _ of bad) void _;
    } catch (err) {
      error = (err as Error).message;
    }
    expect(error).toMatch(/no skill named nope|exited with code 2/);
    expect(api.requests).toHaveLength(2);
  });
});
