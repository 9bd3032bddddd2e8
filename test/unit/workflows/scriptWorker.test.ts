// The script's runtime, in a real worker thread: its hooks (agent, parallel, pipeline, phase, log,
// args, budget), what it cannot reach, determinism, errors with the script's line, and stops that
// hold even in a busy loop.
import { describe, expect, it } from 'vitest';
import { runScriptBody, type ScriptHooks } from '../../../src/workflows/scriptWorker.js';

function hooks(answer: (prompt: string, opts: Record<string, unknown>) => unknown = (p) => `did ${p}`) {
  const calls: Array<{ prompt: string; opts: Record<string, unknown>; phase?: string }> = [];
  const phases: string[] = [];
  const logs: string[] = [];
  const h: ScriptHooks = {
    async agent(prompt, opts, phase) {
      calls.push({ prompt, opts, ...(phase !== undefined ? { phase } : {}) });
      return answer(prompt, opts);
    },
    phase: (t) => phases.push(t),
    log: (t) => logs.push(t),
    spent: () => 42,
  };
  return { h, calls, phases, logs };
}

const run = (body: string, h: ScriptHooks, args?: unknown, signal = new AbortController().signal, firstLine = 1) =>
  runScriptBody(body, args, h, signal, firstLine);

describe('workflow script runtime', () => {
  it('runs agents through parallel and pipeline; failures are null; phase, log, args and budget work', async () => {
    const { h, calls, phases, logs } = hooks((p) => {
      if (p === 'fail') throw new Error('api down');
      if (p.startsWith('json')) return { n: p.length };
      return `did ${p}`;
    });
    const r = await run(
      `phase('One')
       log('start', {k: 1})
       const par = await parallel([() => agent('a', {label: 'A'}), () => agent('fail'), () => { throw new Error('x') }])
       const pipe = await pipeline(args.items, (x) => agent('json ' + x), (r, item, i) => ({ item, i, n: r.n }))
       console.warn('careful')
       return { par, pipe, isArr: Array.isArray(par) && par instanceof Array, spent: budget.spent(), total: budget.total }`,
      h,
      { items: ['p', 'qq'] },
    );
    expect(r).toEqual({
      ok: true,
      value: {
        par: ['did a', null, null],
        pipe: [
          { item: 'p', i: 0, n: 6 },
          { item: 'qq', i: 1, n: 7 },
        ],
        isArr: true,
        spent: 42,
        total: null,
      },
    });
    expect(calls[0]).toEqual({ prompt: 'a', opts: { label: 'A' }, phase: 'One' });
    expect(phases).toEqual(['One']);
    expect(logs).toEqual(['start {"k":1}', '[warn] careful']);
  });

  it('reaches nothing of Node: no require, process, fetch or code from strings', async () => {
    const { h } = hooks();
    const r = await run(
      `return [typeof require, typeof process, typeof fetch, typeof globalThis.Buffer,
        (() => { try { return eval('1') } catch (e) { return e.name } })(),
        (() => { try { return new Function('return 1')() } catch (e) { return e.name } })()]`,
      h,
    );
    expect(r).toEqual({
      ok: true,
      value: ['undefined', 'undefined', 'undefined', 'undefined', 'EvalError', 'EvalError'],
    });
  });

  it('throws on the clock and on chance at run time; new Date(x) still works', async () => {
    const { h } = hooks();
    for (const call of ['Date.now()', 'Math.random()', 'new Date()', 'Date()']) {
      const r = await run(`return ${call}`, h);
      expect(r).toMatchObject({
        ok: false,
        error: expect.stringContaining(`${call} is not available in workflow scripts`),
      });
    }
    expect(await run("return new Date('2020-01-02T00:00:00Z').getUTCFullYear()", h)).toEqual({ ok: true, value: 2020 });
  });

  it('a thrown error fails the run with the script line it came from', async () => {
    const { h } = hooks();
    const r = await run("const a = 1\nthrow new Error('broken on purpose')", h, undefined, undefined, 5);
    expect(r).toMatchObject({ ok: false, error: 'Error: broken on purpose' });
    expect((r as { stack: string }).stack).toContain('workflow.js:6:7');
    const syntax = await run('return (', h);
    expect(syntax).toMatchObject({ ok: false, error: expect.stringMatching(/^SyntaxError/) });
  });

  it('a wrong agent() call rejects inside the script, which may catch it', async () => {
    const { h } = hooks();
    const r = await run(
      `const out = []
       for (const bad of [() => agent(''), () => agent('x', 'nope'), () => parallel('x'), () => pipeline([1], 2)])
         try { await bad() } catch (e) { out.push(e.name) }
       return out`,
      h,
    );
    expect(r).toEqual({ ok: true, value: ['TypeError', 'TypeError', 'TypeError', 'TypeError'] });
  });

  it('a stop ends a script even in a busy loop, at once', async () => {
    const { h } = hooks();
    const ctl = new AbortController();
    const started = Date.now();
    const p = run('while (true) {}', h, undefined, ctl.signal);
    setTimeout(() => ctl.abort(), 300);
    expect(await p).toMatchObject({ ok: false, stopped: true });
    expect(Date.now() - started).toBeLessThan(5000);
  });

  it('a script that returns what JSON cannot hold fails with why', async () => {
    const { h } = hooks();
    const r = await run('const a = {}; a.a = a; return a', h);
    expect(r).toMatchObject({ ok: false, error: expect.stringContaining('cannot be turned into JSON') });
  });
});
