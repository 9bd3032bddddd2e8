// The prompt's history (Up/Down, Ctrl+R) and large pastes, without a terminal.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { promptHistory } from '../../../src/modes/promptHistory.js';
import { PromptState } from '../../../src/tui/prompt.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

const memory = (entries: string[]) => ({ entries: () => entries, add: (t: string) => void entries.push(t) });
const type = (p: PromptState, s: string) => {
  for (const ch of s) p.key(ch, {});
};

describe('PromptState', () => {
  it('Up/Down walk the history and bring the draft back; Enter adds to it', () => {
    const h = memory(['first', 'second']);
    const p = new PromptState(h);
    type(p, 'dra');
    p.key('', { upArrow: true });
    expect(p.editor.text).toBe('second');
    p.key('', { upArrow: true });
    p.key('', { upArrow: true });
    expect(p.editor.text).toBe('first');
    p.key('', { downArrow: true });
    p.key('', { downArrow: true });
    expect(p.editor).toEqual({ text: 'dra', cursor: 3 });
    type(p, 'ft');
    expect(p.key('', { return: true }).submit).toEqual({ display: 'draft', text: 'draft' });
    expect(h.entries()).toEqual(['first', 'second', 'draft']);
  });

  it('Ctrl+R finds the newest match, again for older ones; Enter takes it, Esc restores the draft', () => {
    const p = new PromptState(memory(['npm test', 'git status', 'npm run build']));
    type(p, 'x');
    p.key('r', { ctrl: true });
    type(p, 'npm');
    expect(p.searchMatch()).toBe('npm run build');
    p.key('r', { ctrl: true });
    expect(p.searchMatch()).toBe('npm test');
    p.key('', { return: true });
    expect(p.search).toBeNull();
    expect(p.editor.text).toBe('npm test');
    p.key('r', { ctrl: true });
    type(p, 'zzz');
    expect(p.searchMatch()).toBeUndefined();
    p.key('', { escape: true });
    expect(p.editor.text).toBe('npm test');
  });

  it('a large paste is a placeholder, joined across chunks, sent whole; Backspace removes it whole', () => {
    const p = new PromptState();
    const lines = Array.from({ length: 30 }, (_, i) => `line ${i + 1}`);
    type(p, 'see ');
    p.key(lines.slice(0, 20).join('\r'), {}, 1000);
    p.key(`\r${lines.slice(20).join('\r')}`, {}, 1010);
    expect(p.editor.text).toBe('see [Pasted text #1 +30 lines]');
    expect(p.key('', { return: true }).submit).toEqual({
      display: 'see [Pasted text #1 +30 lines]',
      text: `see ${lines.join('\n')}`,
    });
    p.key(lines.join('\r'), {}, 5000);
    p.key('', { backspace: true }, 6000);
    expect(p.editor.text).toBe('');
  });
});

describe('promptHistory', () => {
  it("keeps this project's prompts in history.jsonl, skipping other projects and torn lines", () => {
    const d = mkdtempSync(join(tmpdir(), 'agent-hist-'));
    dirs.push(d);
    const file = join(d, 'history.jsonl');
    writeFileSync(file, `${JSON.stringify({ display: 'elsewhere', project: '/other' })}\n{"torn\n`);
    const h = promptHistory(file, '/proj');
    h.add('one');
    h.add('one');
    h.add('two');
    expect(promptHistory(file, '/proj').entries()).toEqual(['one', 'two']);
    expect(readFileSync(file, 'utf8').trim().split('\n').at(-1)).toMatch(/"display":"two".*"project":"\/proj"/);
  });
});
