// Runs a workflow script's body in a worker thread, inside a fresh V8 context that holds only the
// script's hooks (agent, parallel, pipeline, phase, log, console, args, budget) and the language's
// built-ins: no require, no process, no file system, no code generation from strings. The worker
// is what makes a script stoppable: a stop, or the end of the session, terminates it even in the
// middle of a busy loop. Each agent() call is a message to this thread, which runs the agent and
// answers with its result as JSON.
import { loadExternal } from '../util/loadExternal.js';

/** What the script's hooks do on this side. */
export interface ScriptHooks {
  /** Run one agent; resolves to its JSON-able result, or null when it failed. */
  agent(prompt: string, opts: Record<string, unknown>, phase: string | undefined): Promise<unknown>;
  phase(title: string): void;
  log(text: string): void;
  /** Output tokens the run's agents spent so far (budget.spent()). */
  spent(): number;
}

export type ScriptOutcome =
  | { ok: true; value: unknown }
  | { ok: false; error: string; stack?: string; stopped?: boolean };

export interface ScriptLimits {
  /** Items one parallel() or pipeline() call accepts. */
  maxItems: number;
  /** The worker's heap, in MB: a script that allocates without end fails instead of the session. */
  heapMb: number;
}

export const DEFAULT_SCRIPT_LIMITS: ScriptLimits = { maxItems: 1000, heapMb: 256 };

/**
 * Run `body` (the script after its meta) to its end. `firstLine` is the script line the body
 * starts on, so that error positions count from the script's top. Never throws; a stop resolves
 * with `stopped: true`.
 */
export function runScriptBody(
  body: string,
  args: unknown,
  hooks: ScriptHooks,
  signal: AbortSignal,
  firstLine = 1,
  limits: ScriptLimits = DEFAULT_SCRIPT_LIMITS,
): Promise<ScriptOutcome> {
  return new Promise<ScriptOutcome>((resolve) => {
    if (signal.aborted) return resolve({ ok: false, error: 'stopped before it started', stopped: true });
    // Loaded at the first workflow, never while the bundle loads: a process started from the
    // start-up snapshot (bin/agent) can start worker threads only when node:worker_threads was not
    // loaded into the snapshot (its shared state does not survive it; scripts/snapshot.cjs refuses
    // a bundle that loads it).
    const { Worker } = loadExternal<typeof import('node:worker_threads')>('node:worker_threads');
    let settled = false;
    const worker = new Worker(`(${workflowWorkerMain.toString()})()`, {
      eval: true,
      workerData: {
        body,
        argsJson: args === undefined ? undefined : JSON.stringify(args),
        // The body starts on the second line of the source the worker runs.
        lineOffset: firstLine - 2,
        ...limits,
      },
      // The script has no access to either, but nothing a worker prints may reach the protocol stream.
      stdout: true,
      stderr: true,
      env: {},
      resourceLimits: { maxOldGenerationSizeMb: limits.heapMb },
    });
    worker.stdout.resume();
    worker.stderr.resume();
    const finish = (outcome: ScriptOutcome) => {
      if (settled) return;
      settled = true;
      signal.removeEventListener('abort', onAbort);
      void worker.terminate();
      resolve(outcome);
    };
    const onAbort = () => finish({ ok: false, error: 'the workflow was stopped', stopped: true });
    signal.addEventListener('abort', onAbort, { once: true });
    worker.on('message', (m: WorkerMessage) => {
      if (settled) return;
      switch (m.t) {
        case 'agent':
          hooks.agent(m.prompt, JSON.parse(m.opts) as Record<string, unknown>, m.phase).then(
            (value) => {
              if (settled) return;
              let json: string | undefined;
              try {
                json = value === undefined || value === null ? undefined : JSON.stringify(value);
              } catch {
                json = undefined;
              }
              worker.postMessage({ t: 'agentDone', id: m.id, json, spent: hooks.spent() });
            },
            (err: unknown) => {
              if (!settled)
                worker.postMessage({ t: 'agentDone', id: m.id, error: (err as Error).message, spent: hooks.spent() });
            },
          );
          return;
        case 'phase':
          hooks.phase(m.title);
          return;
        case 'log':
          hooks.log(m.text);
          return;
        case 'done':
          finish({ ok: true, value: m.json === undefined ? undefined : JSON.parse(m.json) });
          return;
        case 'fail':
          finish({ ok: false, error: m.error, ...(m.stack ? { stack: m.stack } : {}) });
          return;
      }
    });
    worker.on('error', (err) => {
      const oom = (err as { code?: string }).code === 'ERR_WORKER_OUT_OF_MEMORY';
      finish({
        ok: false,
        error: oom
          ? `the script ran out of memory (its limit is ${limits.heapMb} MB)`
          : `the script's worker failed: ${err.message}`,
      });
    });
    worker.on('exit', (code) =>
      finish({ ok: false, error: `the script's worker exited (code ${code}) before the script ended` }),
    );
  });
}

type WorkerMessage =
  | { t: 'agent'; id: number; prompt: string; opts: string; phase?: string }
  | { t: 'phase'; title: string }
  | { t: 'log'; text: string }
  | { t: 'done'; json?: string }
  | { t: 'fail'; error: string; stack?: string };

/**
 * The worker's program. It is sent to the worker as its source text, so it must stand alone: it
 * uses only what it requires itself and what arrives in workerData, never a name from this module.
 */
function workflowWorkerMain(): void {
  const { parentPort, workerData } = require('node:worker_threads');
  const vm = require('node:vm');
  const data = workerData as { body: string; argsJson?: string; lineOffset: number; maxItems: number };
  const pending = new Map<number, (error: string | undefined, json: string | undefined) => void>();
  let nextId = 0;
  let spent = 0;
  parentPort.on('message', (m: { t: string; id: number; json?: string; error?: string; spent: number }) => {
    if (m.t !== 'agentDone') return;
    spent = m.spent;
    const answer = pending.get(m.id);
    pending.delete(m.id);
    answer?.(m.error, m.json);
  });
  const host = {
    agent(prompt: string, optsJson: string, phase: string | undefined, answer: (e?: string, json?: string) => void) {
      const id = ++nextId;
      pending.set(id, answer);
      parentPort.postMessage({ t: 'agent', id, prompt, opts: optsJson, phase });
    },
    phase: (title: string) => parentPort.postMessage({ t: 'phase', title }),
    log: (text: string) => parentPort.postMessage({ t: 'log', text }),
    spent: () => spent,
    done: (json: string | undefined) => parentPort.postMessage({ t: 'done', json }),
    fail: (error: string, stack: string | undefined) => parentPort.postMessage({ t: 'fail', error, stack }),
    setTimeout: (fn: () => void, ms: number) => setTimeout(fn, ms),
    clearTimeout: (h: ReturnType<typeof setTimeout>) => clearTimeout(h),
    maxItems: data.maxItems,
    argsJson: data.argsJson,
  };
  const context = vm.createContext(Object.create(null), {
    name: 'workflow',
    codeGeneration: { strings: false, wasm: false },
  });
  // The hooks are made inside the context, so what the script gets (arrays, objects, errors,
  // promises) belongs to its own realm, as if it had made them itself.
  const install = vm.runInContext(`(${workflowGlobals.toString()})`, context);
  install(host);
  const source = `(async () => { 'use strict';\n${data.body}\n})()`;
  let run: Promise<unknown>;
  try {
    run = vm.runInContext(source, context, { filename: 'workflow.js', lineOffset: data.lineOffset });
  } catch (err) {
    const e = err as Error;
    host.fail(`${e?.name ?? 'Error'}: ${e?.message ?? String(err)}`, e?.stack);
    return;
  }
  run.then(
    (value) => {
      let json: string | undefined;
      try {
        json = JSON.stringify(value);
      } catch (err) {
        host.fail(`the script's return value cannot be turned into JSON: ${(err as Error).message}`, undefined);
        return;
      }
      host.done(json);
    },
    (err) => {
      const e = err as Error;
      const text = e && typeof e === 'object' && 'message' in e ? `${e.name ?? 'Error'}: ${e.message}` : String(err);
      host.fail(text, typeof e?.stack === 'string' ? e.stack : undefined);
    },
  );

  /** Evaluated inside the script's context (its source text is): defines the script's globals. */
  function workflowGlobals(h: typeof host): void {
    const g = globalThis as Record<string, unknown>;
    const fixed = (name: string, value: unknown) =>
      Object.defineProperty(g, name, { value, writable: false, enumerable: false, configurable: false });
    const deterministic = (what: string) => () => {
      throw new Error(
        `${what} is not available in workflow scripts: a run must not depend on the clock or on chance. Pass a timestamp in through args, or vary prompts by index.`,
      );
    };
    let current: string | undefined;
    const agent = (prompt: unknown, opts?: unknown): Promise<unknown> => {
      if (typeof prompt !== 'string' || !prompt.trim())
        return Promise.reject(new TypeError('agent(prompt, opts?): prompt must be a non-empty string'));
      let optsJson: string;
      try {
        optsJson = JSON.stringify(opts ?? {});
      } catch {
        return Promise.reject(new TypeError('agent(prompt, opts?): opts must be plain data'));
      }
      if (opts !== undefined && (opts === null || typeof opts !== 'object' || Array.isArray(opts)))
        return Promise.reject(new TypeError('agent(prompt, opts?): opts must be an object'));
      return new Promise((resolve, reject) =>
        h.agent(prompt, optsJson, current, (error, json) => {
          if (error !== undefined) reject(new Error(error));
          else resolve(json === undefined ? null : JSON.parse(json));
        }),
      );
    };
    const settle = (run: () => unknown): Promise<unknown> => {
      try {
        return Promise.resolve(run()).then(
          (v) => v,
          () => null,
        );
      } catch {
        return Promise.resolve(null);
      }
    };
    const tooMany = (what: string, n: number) =>
      new RangeError(`${what}: ${n} items is more than the ${h.maxItems} one call accepts; split the work`);
    const parallel = (thunks: unknown): Promise<unknown[]> => {
      if (!Array.isArray(thunks))
        return Promise.reject(
          new TypeError('parallel(thunks): give an array of functions, e.g. items.map(x => () => agent(...))'),
        );
      if (thunks.length > h.maxItems) return Promise.reject(tooMany('parallel()', thunks.length));
      return Promise.all(
        thunks.map((t) =>
          typeof t === 'function'
            ? settle(t as () => unknown)
            : Promise.reject(new TypeError('parallel(): every item must be a function')),
        ),
      );
    };
    const pipeline = (items: unknown, ...stages: unknown[]): Promise<unknown[]> => {
      if (!Array.isArray(items))
        return Promise.reject(new TypeError('pipeline(items, ...stages): items must be an array'));
      if (items.length > h.maxItems) return Promise.reject(tooMany('pipeline()', items.length));
      if (stages.some((s) => typeof s !== 'function'))
        return Promise.reject(new TypeError('pipeline(items, ...stages): every stage must be a function'));
      return Promise.all(
        items.map(async (item, index) => {
          let value: unknown = item;
          for (const stage of stages as Array<(v: unknown, item: unknown, i: number) => unknown>) {
            try {
              value = await stage(value, item, index);
            } catch {
              return null;
            }
          }
          return value;
        }),
      );
    };
    const text = (parts: unknown[]) =>
      parts
        .map((p) => {
          if (typeof p === 'string') return p;
          try {
            const s = JSON.stringify(p);
            return s === undefined ? String(p) : s;
          } catch {
            return String(p);
          }
        })
        .join(' ');
    const log = (...parts: unknown[]) => h.log(text(parts));
    fixed('agent', agent);
    fixed('parallel', parallel);
    fixed('pipeline', pipeline);
    fixed('phase', (title: unknown) => {
      current = String(title);
      h.phase(current);
    });
    fixed('log', log);
    fixed(
      'console',
      Object.freeze({
        log,
        info: log,
        debug: log,
        warn: (...p: unknown[]) => h.log(`[warn] ${text(p)}`),
        error: (...p: unknown[]) => h.log(`[error] ${text(p)}`),
      }),
    );
    fixed('args', h.argsJson === undefined ? undefined : JSON.parse(h.argsJson));
    fixed('budget', Object.freeze({ total: null, spent: () => h.spent(), remaining: () => Number.POSITIVE_INFINITY }));
    fixed('workflow', () =>
      Promise.reject(
        new Error(
          'workflow() (running another workflow inside this one) is not available here: call its agents directly',
        ),
      ),
    );
    fixed('setTimeout', (fn: unknown, ms?: unknown) => {
      if (typeof fn !== 'function') throw new TypeError('setTimeout(fn, ms): fn must be a function');
      return h.setTimeout(fn as () => void, Number(ms) || 0);
    });
    fixed('clearTimeout', (handle: ReturnType<typeof setTimeout>) => h.clearTimeout(handle));
    // The clock and chance: a run must repeat the same way.
    const RealDate = Date;
    (Math as { random: () => number }).random = deterministic('Math.random()');
    const ClockFreeDate = new Proxy(RealDate, {
      construct(target, a, newTarget) {
        if (a.length === 0) deterministic('new Date()')();
        return Reflect.construct(target, a, newTarget);
      },
      apply: deterministic('Date()'),
      get(target, key, receiver) {
        if (key === 'now') return deterministic('Date.now()');
        return Reflect.get(target, key, receiver);
      },
    });
    Object.defineProperty(g, 'Date', { value: ClockFreeDate, writable: false, enumerable: false, configurable: false });
  }
}
