// Which branch of a transcript's uuid chain is resumed, and when a truncating resume is refused.
import { describe, expect, it } from 'vitest';
import { ResumeError, selectBranch, type ChainEntry } from '../../../src/session/resume.js';

let line = 0;
function entry(uuid: string, parentUuid: string | null, type: string, text = uuid): ChainEntry {
  const content = type === 'result' ? [{ type: 'tool_result', tool_use_id: 't', content: 'x' }] : text;
  return {
    uuid,
    parentUuid,
    lineNo: ++line,
    entry: {
      type: type === 'result' ? 'user' : type,
      uuid,
      parentUuid,
      message: { role: type === 'assistant' ? 'assistant' : 'user', content },
    },
  };
}
const ids = (chain: ChainEntry[]) => chain.map((e) => e.uuid);

// p1 → a1 → p2 → a2, and a later branch from a1: p3 → a3
const tree = () => [
  entry('p1', null, 'user'),
  entry('a1', 'p1', 'assistant'),
  entry('p2', 'a1', 'user'),
  entry('a2', 'p2', 'assistant'),
  entry('p3', 'a1', 'user'),
  entry('a3', 'p3', 'assistant'),
];

describe('selectBranch', () => {
  it('takes the newest leaf and walks its parents; lines on other branches are ignored', () => {
    expect(ids(selectBranch(tree()))).toEqual(['p1', 'a1', 'p3', 'a3']);
  });

  it('resumes at a message: the branch that ends there, even on an older branch', () => {
    expect(ids(selectBranch(tree(), 'a2'))).toEqual(['p1', 'a1', 'p2', 'a2']);
    expect(ids(selectBranch(tree(), 'a1'))).toEqual(['p1', 'a1']);
  });

  it('an unknown uuid is a ResumeError naming it', () => {
    expect(() => selectBranch(tree(), 'nope')).toThrow(/no message with uuid nope/);
  });

  it('a parent cycle does not hang', () => {
    const loop = [entry('x', 'y', 'user'), entry('y', 'x', 'assistant'), entry('z', 'y', 'user')];
    expect(ids(selectBranch(loop))).toEqual(['x', 'y', 'z']);
  });

  it('--resume-drops-turn accepts dropping exactly that turn (its tool results included) and refuses anything more', () => {
    const chain = [
      entry('p1', null, 'user'),
      entry('a1', 'p1', 'assistant'),
      entry('p2', 'a1', 'user'),
      entry('a2', 'p2', 'assistant'),
      entry('r2', 'a2', 'result'),
      entry('a2b', 'r2', 'assistant'),
    ];
    expect(ids(selectBranch(chain, 'a1', 'p2'))).toEqual(['p1', 'a1']);
    let err: unknown;
    try {
      selectBranch(chain, 'p1', 'p2'); // a1 (an answer before the dropped prompt) would go too
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ResumeError);
    expect((err as ResumeError).asResult).toBe(true);
    expect((err as Error).message).toMatch(/^Resume rejected by --resume-drops-turn:/);
    const queued = [...chain, entry('p3', 'a2b', 'user')];
    expect(() => selectBranch(queued, 'a1', 'p2')).toThrow(/another prompt \(p3\)/);
    expect(() => selectBranch(chain, 'a1', 'elsewhere')).toThrow(/another prompt \(p2\)/);
    expect(() => selectBranch(chain.slice(0, 2).concat(entry('s', 'a1', 'system')), 'a1', 'elsewhere')).toThrow(
      /the prompt elsewhere is not in the discarded range/,
    );
  });
});
