// Skills end to end: SKILL.md folders found, listed to the model by name and description only, the
// full text loaded by the Skill tool; the SDK's skills option selects them; init.skills and
// reload_skills report them.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { query } from '@anthropic-ai/claude-agent-sdk';
import { describe, expect, it } from 'vitest';
import { lastToolResults, text, toolUse } from '../fake-api/server.js';
import { runAgent, startAgent, startFakeApi, STREAM_ARGS, tempDir, userLine, type FakeApi } from './harness.js';
import { promptStream, sdkOptions } from './sdkHost.js';

let api: FakeApi | undefined;

function project() {
  const cwd = tempDir();
  for (const [name, desc, body] of [
    ['pdf', 'Work with PDF files', 'PDF-SKILL-BODY: use pdftotext.'],
    ['review', 'Review code changes', 'REVIEW-SKILL-BODY'],
  ]) {
    mkdirSync(join(cwd, '.claude/skills', name), { recursive: true });
    writeFileSync(
      join(cwd, '.claude/skills', name, 'SKILL.md'),
      `---\nname: ${name}\ndescription: ${desc}\n---\n${body}\n`,
    );
  }
  return cwd;
}

describe('skills', () => {
  it('the model sees names and descriptions only; Skill loads the full text; init lists them', async () => {
    const cwd = project();
    api = await startFakeApi([toolUse('Skill', { skill: 'pdf' }, 'toolu_s'), text('done')]);
    const r = await runAgent({
      api,
      cwd,
      args: [...STREAM_ARGS, '--dangerously-skip-permissions'],
      input: `${userLine('read the pdf')}\n`,
    });
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
    const q = query({
      prompt: input as never,
      options: sdkOptions(api.url, cwd, { settingSources: ['project'], skills: ['pdf'] }) as never,
    });
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
      const bad = query({
        prompt: 'hi',
        options: sdkOptions(api.url, cwd, { settingSources: ['project'], skills: ['nope'] }) as never,
      });
      for await (const _ of bad) void _;
    } catch (err) {
      error = (err as Error).message;
    }
    expect(error).toMatch(/no skill named nope|exited with code 2/);
    expect(api.requests).toHaveLength(2);
  });

  it("a loaded skill's allowed-tools run without asking and its model answers, for the rest of that turn only", async () => {
    const cwd = tempDir();
    mkdirSync(join(cwd, '.claude/skills/deploy'), { recursive: true });
    writeFileSync(
      join(cwd, '.claude/skills/deploy/SKILL.md'),
      '---\nname: deploy\ndescription: Deploy the app\nallowed-tools: Bash(mkdir -v deployed:*)\nmodel: haiku\n---\nDEPLOY-BODY\n',
    );
    api = await startFakeApi([
      toolUse('Skill', { skill: 'deploy' }, 'toolu_s'),
      toolUse('Bash', { command: 'mkdir -v deployed now' }, 'toolu_b1'),
      text('deployed'),
      toolUse('Bash', { command: 'mkdir -v deployed again' }, 'toolu_b2'),
      text('end'),
    ]);
    // Default mode, no host to ask: Bash runs only where a rule allows it. Loading a skill that
    // pre-approves tools is itself a decision: here a rule allows it.
    const r = await runAgent({
      api,
      cwd,
      args: [...STREAM_ARGS, '--model', 'sonnet', '--allowedTools', 'Skill(deploy)'],
      input: `${userLine('deploy it')}\n${userLine('again')}\n`,
    });
    expect(r.code).toBe(0);
    const [loaded] = lastToolResults(api.requests[1]);
    expect(JSON.stringify(loaded.content)).toContain(
      'Allowed without asking while this skill runs (this turn): Bash(mkdir -v deployed:*).',
    );
    const [first] = lastToolResults(api.requests[2]);
    expect(first.is_error).toBeFalsy();
    // mkdir, not echo: a read-only command would run unasked anyway.
    expect(JSON.stringify(first.content)).toContain("created directory 'now'");
    expect(api.requests.map((q) => q.body.model)).toEqual([
      'claude-sonnet-5-5',
      'claude-haiku-5-5',
      'claude-haiku-5-5',
      'claude-sonnet-5-5',
      'claude-sonnet-5-5',
    ]);
    // The next turn: the skill's rule is gone, so the same command is refused.
    const [second] = lastToolResults(api.requests[4]);
    expect(second.is_error).toBe(true);
    expect(JSON.stringify(second.content)).toContain('Permission to use Bash');

    // Without a rule, no one to ask: the skill is not loaded, and nothing is pre-approved.
    await api.close();
    api = await startFakeApi([
      toolUse('Skill', { skill: 'deploy' }, 'toolu_s'),
      toolUse('Bash', { command: 'mkdir -v deployed now' }, 'toolu_b'),
      text('end'),
    ]);
    const denied = await runAgent({ api, cwd, args: ['-p', 'deploy it'] });
    expect(denied.code).toBe(0);
    const [skill] = lastToolResults(api.requests[1]);
    expect(skill.is_error).toBe(true);
    expect(JSON.stringify(skill.content)).toContain('Permission to use Skill');
    expect(lastToolResults(api.requests[2])[0].is_error).toBe(true);
  });

  it('a bad allowed-tools rule is a clear tool error naming the skill file to fix', async () => {
    const cwd = tempDir();
    mkdirSync(join(cwd, '.claude/skills/broken'), { recursive: true });
    writeFileSync(
      join(cwd, '.claude/skills/broken/SKILL.md'),
      '---\ndescription: Broken rules\nallowed-tools: Bash(unclosed\n---\nBODY\n',
    );
    api = await startFakeApi([toolUse('Skill', { skill: 'broken' }, 'toolu_s'), text('ok')]);
    const r = await runAgent({ api, cwd, args: ['-p', 'go', '--allowedTools', 'Skill'] });
    expect(r.code).toBe(0);
    const [res] = lastToolResults(api.requests[1]);
    expect(res.is_error).toBe(true);
    expect(JSON.stringify(res.content)).toMatch(
      /Skill broken cannot be loaded: its allowed-tools entry \\"Bash\(unclosed\\" is not a permission rule/,
    );
  });

  it('skills that appear later (reloadSkills) bring the Skill tool with them', async () => {
    const cwd = tempDir();
    api = await startFakeApi([text('no skills yet'), toolUse('Skill', { skill: 'late' }, 'toolu_l'), text('ok')]);
    const input = promptStream();
    const q = query({
      prompt: input as never,
      options: sdkOptions(api.url, cwd, { settingSources: ['project'] }) as never,
    });
    input.push('first');
    const inits: any[] = [];
    for await (const m of q) {
      if (m.type === 'system' && m.subtype === 'init') inits.push(m);
      if (m.type !== 'result') continue;
      if (inits.length === 1) {
        mkdirSync(join(cwd, '.claude/skills/late'), { recursive: true });
        writeFileSync(join(cwd, '.claude/skills/late/SKILL.md'), '---\ndescription: Came later\n---\nLATE-BODY\n');
        const reloaded = await q.reloadSkills();
        expect(reloaded.skills).toEqual([{ name: 'late', description: 'Came later (project)', argumentHint: '' }]);
        input.push('second');
      } else input.end();
    }
    expect(api.requests[0].body.tools.some((t: any) => t.name === 'Skill')).toBe(false);
    expect(inits[0].tools).not.toContain('Skill');
    expect(inits[1].tools).toContain('Skill');
    expect(inits[1].skills).toEqual(['late']);
    expect(api.requests[1].body.tools.find((t: any) => t.name === 'Skill').description).toContain('- late: Came later');
    expect(JSON.stringify(lastToolResults(api.requests[2])[0].content)).toContain('LATE-BODY');
  });

  it('model: default in a command or a skill is the session\'s default (ANTHROPIC_MODEL), as set_model "default"', async () => {
    const cwd = tempDir();
    mkdirSync(join(cwd, '.claude/skills/quick'), { recursive: true });
    writeFileSync(
      join(cwd, '.claude/skills/quick/SKILL.md'),
      '---\nname: quick\ndescription: Quick\nmodel: default\n---\nQUICK\n',
    );
    mkdirSync(join(cwd, '.claude/commands'), { recursive: true });
    writeFileSync(join(cwd, '.claude/commands/go.md'), '---\ndescription: Go\nmodel: default\n---\nGo now.\n');
    api = await startFakeApi([text('went'), toolUse('Skill', { skill: 'quick' }, 'toolu_q'), text('done')]);
    const p = startAgent({
      api,
      cwd,
      args: [...STREAM_ARGS, '--dangerously-skip-permissions'],
      env: { ANTHROPIC_MODEL: 'claude-haiku-4-5' },
    });
    const results = () => p.json().filter((m) => m.type === 'result').length;
    // The session moves off its default first, so "default" cannot pass for "no model".
    for (const [i, line] of ['/model sonnet', '/go', 'use quick'].entries()) {
      p.sendRaw(userLine(line));
      await p.waitFor(() => results() > i);
    }
    p.endInput();
    expect((await p.exited).code, p.stderr()).toBe(0);
    expect(api.requests.map((q) => q.body.model)).toEqual([
      'claude-haiku-4-5',
      'claude-sonnet-5-5',
      'claude-haiku-4-5',
    ]);
  });
});
