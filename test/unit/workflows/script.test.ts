// Reading a workflow script: the meta literal first, the body after it, clear errors otherwise;
// the opt-in rule; calls that would make a run depend on the clock or on chance.
import { describe, expect, it } from 'vitest';
import { workflowsEnabled } from '../../../src/workflows/optIn.js';
import { nondeterministicCall, parseWorkflowScript } from '../../../src/workflows/script.js';

describe('parseWorkflowScript', () => {
  it('reads the meta literal and the body after it, with the line the body starts on', async () => {
    const r = await parseWorkflowScript(
      `export const meta = {\n  name: 'x', description: \`Find things\`,\n  phases: [{ title: 'A', detail: 'd' }, { title: 'B' }],\n}\n\nconst a = await agent('go')\nreturn a`,
    );
    expect(r).toEqual({
      meta: { name: 'x', description: 'Find things', phases: [{ title: 'A', detail: 'd' }, { title: 'B' }] },
      body: "const a = await agent('go')\nreturn a",
      bodyLine: 6,
    });
  });

  it('refuses a script without the meta first, a meta that is not a pure literal, or missing fields', async () => {
    expect(await parseWorkflowScript("log('hi')\nexport const meta = { name: 'x', description: 'y' }")).toEqual({
      error: expect.stringContaining('must begin with `export const meta'),
    });
    const computed = await parseWorkflowScript("export const meta = { name: 'x', description: 'y' + z }");
    expect((computed as { error: string }).error).toMatch(/pure literal.*BinaryExpression/);
    const interp = await parseWorkflowScript('export const meta = { name: `a${b}`, description: "y" }');
    expect((interp as { error: string }).error).toMatch(/template interpolation/);
    expect(await parseWorkflowScript("export const meta = { name: 'x' }")).toEqual({
      error: 'meta.description must be a non-empty string',
    });
    expect(await parseWorkflowScript("export const meta = { description: 'x' }")).toEqual({
      error: 'meta.name must be a non-empty string',
    });
  });

  it('names the line of a syntax error and says scripts are plain JavaScript', async () => {
    const r = (await parseWorkflowScript(
      "export const meta = { name: 'x', description: 'y' }\nconst files: string[] = []",
    )) as { error: string };
    expect(r.error).toContain('Syntax error: Unexpected token (2:11)');
    expect(r.error).toContain('const files: string[] = []');
    expect(r.error).toContain('plain JavaScript');
  });

  it('refuses imports and a second export', async () => {
    const meta = "export const meta = { name: 'x', description: 'y' }\n";
    expect(await parseWorkflowScript(`${meta}import fs from 'node:fs'`)).toEqual({
      error: 'import statements are not available in workflow scripts',
    });
    expect(await parseWorkflowScript(`${meta}const m = await import('node:fs')`)).toEqual({
      error: 'import() is not available in workflow scripts',
    });
    expect(await parseWorkflowScript(`${meta}export const other = 1`)).toEqual({
      error: 'only the meta statement may be exported',
    });
  });
});

describe('nondeterministicCall', () => {
  it('finds Date.now(), Math.random() and new Date(); new Date(x) and other members pass', async () => {
    expect(await nondeterministicCall('const t = Date.now()')).toBe('Date.now()');
    expect(await nondeterministicCall('if (x) { y = Math.random() }')).toBe('Math.random()');
    expect(await nondeterministicCall('const d = new Date()')).toBe('new Date()');
    expect(await nondeterministicCall('const d = new Date(args.when); Math.max(1, 2)')).toBeUndefined();
  });
});

describe('workflowsEnabled', () => {
  it('is off unless the user opts in; the off switches win', () => {
    expect(workflowsEnabled({}, {})).toBe(false);
    expect(workflowsEnabled({ enableWorkflows: true }, {})).toBe(true);
    expect(workflowsEnabled({}, { CLAUDE_CODE_WORKFLOWS: '1' })).toBe(true);
    expect(workflowsEnabled({ enableWorkflows: true }, { CLAUDE_CODE_WORKFLOWS: '0' })).toBe(false);
    expect(workflowsEnabled({ enableWorkflows: true, disableWorkflows: true }, {})).toBe(false);
    expect(workflowsEnabled({}, { CLAUDE_CODE_WORKFLOWS: '1', CLAUDE_CODE_DISABLE_WORKFLOWS: '1' })).toBe(false);
    expect(workflowsEnabled({ enableWorkflows: false }, {})).toBe(false);
  });
});
