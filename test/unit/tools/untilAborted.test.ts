// The floor under every tool's interrupt: a tool that ignores its signal is left behind after the
// grace, with an interrupted result; one that stops by itself keeps its own result.
import { describe, expect, it } from 'vitest';
import type { ToolProgress, ToolResult } from '../../../tools/tool.js';
import { ToolError } from '../../../tools/tool.js';
import { untilAborted } from '../../../tools/untilAborted.js';

async function drain(gen: AsyncGenerator<ToolProgress, ToolResult, void>): Promise<ToolResult> {
  for (;;) {
    const step = await gen.next();
    if (step.done) return step.value;
  }
}

describe('untilAborted', () => {
  it('a tool that never looks at its signal is cut off the grace after the abort', async () => {
    let returned = false;
    async function* deaf(): AsyncGenerator<ToolProgress, ToolResult, void> {
      try {
        await new Promise(() => {}); // never settles
        return { content: 'never' };
      } finally {
        returned = true;
      }
    }
    const ac = new AbortController();
    setTimeout(() => ac.abort(), 50);
    const started = Date.now();
    const err = await drain(untilAborted(deaf(), ac.signal, 'Deaf', 100)).catch((e) => e);
    expect(err).toBeInstanceOf(ToolError);
    expect(err.message).toBe('Deaf was interrupted.');
    expect(Date.now() - started).toBeLessThan(1000);
    expect(returned).toBe(false); // still stuck in its await: left behind, not awaited
  });

  it('a tool that stops by itself within the grace keeps its own result; progress passes through', async () => {
    const ac = new AbortController();
    async function* polite(): AsyncGenerator<ToolProgress, ToolResult, void> {
      yield { type: 'progress' };
      await new Promise((r) => ac.signal.addEventListener('abort', r, { once: true }));
      return { content: 'stopped cleanly', isError: true };
    }
    setTimeout(() => ac.abort(), 20);
    const gen = untilAborted(polite(), ac.signal, 'Polite', 1000);
    expect((await gen.next()).value).toEqual({ type: 'progress' });
    expect(await drain(gen)).toEqual({ content: 'stopped cleanly', isError: true });
  });

  it('without an abort it is transparent', async () => {
    async function* quick(): AsyncGenerator<ToolProgress, ToolResult, void> {
      return { content: 'ok' };
    }
    expect(await drain(untilAborted(quick(), new AbortController().signal, 'Quick'))).toEqual({ content: 'ok' });
  });
});
