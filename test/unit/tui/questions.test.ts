import { describe, expect, it } from 'vitest';
import { parseChoice, planAnswer, questionLines } from '../../../src/tui/questions.js';

const q = {
  question: 'Which db?',
  header: 'DB',
  options: [{ label: 'Postgres', description: 'relational' }, { label: 'Redis' }],
};

describe('terminal questions', () => {
  it('numbers the options and offers Other', () => {
    expect(questionLines(q)).toEqual([
      '[DB] Which db?',
      '  1. Postgres — relational',
      '  2. Redis',
      '  3. Other (type your own answer)',
    ]);
  });

  it('a number picks a label; several only with multiSelect; text is the answer as typed; bad input asks again', () => {
    expect(parseChoice('2', q)).toBe('Redis');
    expect(parseChoice('1,2', q)).toBeUndefined();
    expect(parseChoice('1, 2', { ...q, multiSelect: true })).toBe('Postgres, Redis');
    expect(parseChoice('SQLite please', q)).toBe('SQLite please');
    expect(parseChoice('9', q)).toBeUndefined();
    expect(parseChoice('3', q)).toBeUndefined();
    expect(parseChoice('  ', q)).toBeUndefined();
  });

  it('plan approval: y, a (accept edits), n (keep planning)', () => {
    expect(planAnswer('y')).toEqual({ behavior: 'allow' });
    expect(planAnswer('a')).toMatchObject({
      behavior: 'allow',
      updatedPermissions: [{ type: 'setMode', mode: 'acceptEdits' }],
    });
    expect(planAnswer('n')?.behavior).toBe('deny');
    expect(planAnswer('maybe')).toBeUndefined();
  });
});
