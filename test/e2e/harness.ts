// Spawns the real bin/agent against the project's fake Messages API and collects what it prints.
import { spawn, type ChildProcess } from 'node:child_process';
import { expect, onTestFinished, type TestContext } from 'vitest';
import { outboundSchema } from '../../src/protocol/outbound.js';
import { mkdirSync, writeFileSync } from 'node:fs';
import { afterEveryTest } from '../perFile.js';
import { makeTempDir } from '../tempDirs.js';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  type FakeApi,
  type FakeApiOptions,
  lastToolResults,
  type RecordedRequest,
  type Script,
  type ScriptedReply,
  startFakeApi as startFakeApiServer,
} from '../fake-api/server.js';

export const AGENT_BIN = fileURLToPath(new URL('../../bin/agent', import.meta.url));

/** A temp folder, removed when the test file ends (test/tempDirs.ts). */
export function tempDir(prefix = 'agent-e2e-'): string {
  return makeTempDir(prefix);
}

/** Writes `value` as JSON to `file`, making its folder first (settings files and the like). */
export function writeJson(file: string, value: unknown): void {
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, JSON.stringify(value));
}

export interface AgentProcess {
  child: ChildProcess;
  /** Every complete stdout line, in order. */
  lines: string[];
  /** Parsed stdout lines (throws in `json()` if a line is not JSON). */
  json(): Array<Record<string, any>>;
  stderr(): string;
  /** Write one JSON message as a line to the agent's stdin. */
  send(message: object): void;
  sendRaw(text: string): void;
  endInput(): void;
  /** Resolves when a stdout line matching the predicate has been seen. */
  waitFor(pred: (msg: Record<string, any>) => boolean, timeoutMs?: number): Promise<Record<string, any>>;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

export interface RunOptions {
  args?: string[];
  cwd?: string;
  env?: Record<string, string | undefined>;
  api?: FakeApi;
  /** Run the agent as this user (the test must be root): the unprivileged case of what it does. */
  user?: { uid: number; gid: number };
}

/**
 * The scripted fake Messages API (test/fake-api/server.ts). One started inside a test (or its
 * beforeEach) is closed when that test ends, after its afterEach hooks; one started in a beforeAll
 * serves the whole file, and the file closes it.
 */
export async function startFakeApi(script: Script, opts?: FakeApiOptions): Promise<FakeApi> {
  const api = await startFakeApiServer(script, opts);
  try {
    onTestFinished(() => api.close());
  } catch {
    // Not inside a test: a beforeAll's, closed by its file.
  }
  return api;
}

/**
 * Every stdout line of a stream-json run that the strict outbound schema refuses, as
 * `<line>: <problem>`; each test ends by checking there were none (stdout carries protocol only).
 */
const protocolViolations: string[] = [];
afterEveryTest(() => {
  const seen = protocolViolations.splice(0);
  expect(seen, 'stdout lines that are not valid protocol messages').toEqual([]);
});

function checkProtocolLine(line: string): void {
  let json: unknown;
  try {
    json = JSON.parse(line);
  } catch {
    protocolViolations.push(`${line.slice(0, 200)}: not JSON`);
    return;
  }
  const parsed = outboundSchema.safeParse(json);
  if (!parsed.success)
    protocolViolations.push(
      `${line.slice(0, 300)}: ${parsed.error.issues
        .map((i) => `${i.path.join('.')} ${i.message}`)
        .join('; ')
        .slice(0, 300)}`,
    );
}

export function startAgent(opts: RunOptions = {}): AgentProcess {
  const args = opts.args ?? [];
  const streamJsonOut = args.some(
    (a, i) => (a === '--output-format' && args[i + 1] === 'stream-json') || a === '--output-format=stream-json',
  );
  const env: Record<string, string | undefined> = {
    ...process.env,
    ANTHROPIC_API_KEY: 'test-key',
    AGENT_MAX_RETRIES: '2',
    CLAUDE_CONFIG_DIR: opts.env?.CLAUDE_CONFIG_DIR ?? tempDir('agent-config-'),
    // The agent keeps its session temp folder after exit (task output files a host may still
    // read): give it one the test file removes.
    TMPDIR: opts.env?.TMPDIR ?? tempDir('agent-tmp-'),
    ...(opts.api ? { ANTHROPIC_BASE_URL: opts.api.url } : {}),
    ...opts.env,
  };
  for (const k of Object.keys(env)) if (env[k] === undefined) delete env[k];
  const child = spawn(AGENT_BIN, opts.args ?? [], {
    cwd: opts.cwd ?? tempDir(),
    env: env as NodeJS.ProcessEnv,
    stdio: ['pipe', 'pipe', 'pipe'],
    ...(opts.user ?? {}),
  });
  const lines: string[] = [];
  let partial = '';
  let err = '';
  const waiters: Array<{ pred: (m: Record<string, any>) => boolean; resolve: (m: Record<string, any>) => void }> = [];
  child.stdout!.setEncoding('utf8');
  child.stdout!.on('data', (chunk: string) => {
    partial += chunk;
    let nl: number;
    while ((nl = partial.indexOf('\n')) !== -1) {
      const line = partial.slice(0, nl);
      partial = partial.slice(nl + 1);
      lines.push(line);
      if (streamJsonOut && line !== '') checkProtocolLine(line);
      let msg: Record<string, any> | undefined;
      try {
        msg = JSON.parse(line);
      } catch {
        /* text mode */
      }
      if (msg)
        for (const w of [...waiters])
          if (w.pred(msg)) {
            waiters.splice(waiters.indexOf(w), 1);
            w.resolve(msg);
          }
    }
  });
  child.stderr!.setEncoding('utf8');
  child.stderr!.on('data', (c: string) => (err += c));
  child.stdin!.on('error', () => {});
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((res) => {
    child.on('close', (code, signal) => res({ code, signal }));
    // A spawn that fails (EACCES, ENOENT) may never close: end at once, the reason on stderr.
    child.on('error', (e) => {
      err += `spawn failed: ${e.message}\n`;
      res({ code: null, signal: null });
    });
  });
  return {
    child,
    lines,
    json: () => lines.map((l) => JSON.parse(l)),
    stderr: () => err,
    send: (m) => child.stdin!.write(`${JSON.stringify(m)}\n`),
    sendRaw: (t) => child.stdin!.write(t),
    endInput: () => child.stdin!.end(),
    waitFor(pred, timeoutMs = 15_000) {
      for (const l of lines) {
        try {
          const m = JSON.parse(l);
          if (pred(m)) return Promise.resolve(m);
        } catch {
          /* not JSON */
        }
      }
      return new Promise((res, rej) => {
        const t = setTimeout(
          () => rej(new Error(`timed out waiting for a line; stdout so far:\n${lines.join('\n')}\nstderr:\n${err}`)),
          timeoutMs,
        );
        waiters.push({ pred, resolve: (m) => (clearTimeout(t), res(m)) });
      });
    },
    exited,
  };
}

/** Run to completion: stdin gets `input` (string) then closes. */
export async function runAgent(opts: RunOptions & { input?: string; timeoutMs?: number }) {
  const p = startAgent(opts);
  if (opts.input !== undefined) p.sendRaw(opts.input);
  p.endInput();
  const timeout = setTimeout(() => p.child.kill('SIGKILL'), opts.timeoutMs ?? 20_000);
  const { code, signal } = await p.exited;
  clearTimeout(timeout);
  return { code, signal, lines: p.lines, stdout: p.lines.join('\n'), stderr: p.stderr(), json: p.json };
}

export function userLine(text: string): string {
  return `${JSON.stringify({
    type: 'user',
    session_id: '',
    message: { role: 'user', content: [{ type: 'text', text }] },
    parent_tool_use_id: null,
  })}\n`;
}

/** Built-in tools withheld behind ToolSearch (their `deferred` flag): in init.tools, not in a first request's tools. */
export const DEFERRED_BUILTINS = [
  'NotebookEdit',
  'TaskStop',
  'WebFetch',
  'WebSearch',
  'SendMessage',
  'EnterWorktree',
  'ExitWorktree',
  'CronCreate',
  'CronDelete',
  'CronList',
  'Monitor',
];
/** What a first request offers, from init's tools: the deferred built-ins withheld, Task sent as Agent. */
export function sentFromInit(initTools: string[]): string[] {
  return initTools.filter((n) => !DEFERRED_BUILTINS.includes(n)).map((n) => (n === 'Task' ? 'Agent' : n));
}
/**
 * The system reminder a session's first request adds to its first user message (a text block of
 * its own after the prompt): the built-ins above, listed for ToolSearch. Exact, so a test that
 * checks a first message checks this too.
 */
export const DEFERRED_REMINDER = deferredReminder(DEFERRED_BUILTINS);
/** The deferred-tools reminder listing `names` (a subagent's list is shorter: it has fewer tools). */
export function deferredReminder(names: readonly string[]): string {
  return `<system-reminder>
These ${names.length} tools are deferred: their definitions are not loaded, so you cannot call them until they are. To use one, first call ToolSearch (with "select:<name>" or with keywords); it loads the tools it returns.
${names.join('\n')}
</system-reminder>`;
}
export const STREAM_ARGS = ['--input-format', 'stream-json', '--output-format', 'stream-json', '--verbose'];

/** How many assistant turns the conversation already has. */
export function turns(req: RecordedRequest): number {
  return (req.body.messages ?? []).filter((m: any) => m.role === 'assistant').length;
}

/** The text of a tool_result's content: a string as is, text blocks joined. */
export function resultText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) return content.map((b: any) => b.text ?? '').join('');
  return '';
}

/** A tool call: its name, its input, and its id when a test names it (else `calls` numbers it). */
export type Call = [name: string, input: Record<string, unknown>, id?: string];

/** A tool_result's content as text: a string as it is, text blocks joined, anything else as JSON. */
function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content) && content.every((b: any) => b?.type === 'text')) return resultText(content);
  return JSON.stringify(content);
}

/** One assistant message with several tool_use blocks, ids t1…tn unless a call names its own. */
export function calls(list: Call[], prefix = 't'): ScriptedReply {
  return {
    content: list.map(([name, input, id], i) => ({
      type: 'tool_use' as const,
      id: id ?? `${prefix}${i + 1}`,
      name,
      input,
    })),
  };
}

/** tool_use_id → the tool_result the model saw (non-string content as JSON). */
export function resultsById(req: RecordedRequest) {
  return Object.fromEntries(
    lastToolResults(req).map((r) => [r.tool_use_id, { text: contentText(r.content), isError: r.is_error === true }]),
  );
}

export type { Script, FakeApi };

/**
 * The fake Messages API for a test that runs concurrently with others (`describe.concurrent`): closed
 * when that test ends, through the test's own context (`ctx`, the test function's argument), which
 * vitest's global onTestFinished cannot tell apart from its neighbours'.
 */
export async function startTestApi(
  ctx: Pick<TestContext, 'onTestFinished'>,
  script: Script,
  opts?: FakeApiOptions,
): Promise<FakeApi> {
  const api = await startFakeApiServer(script, opts);
  ctx.onTestFinished(() => api.close());
  return api;
}

/** One turn of a session run by `runTurns`: the requests it made and the stdout lines it printed. */
export interface TurnRecord {
  requests: RecordedRequest[];
  lines: string[];
  json(): Array<Record<string, any>>;
}

/** Runs `f` once, when the first test that needs its answer asks; later askers get the same answer. */
export function once<T>(f: () => Promise<T>): () => Promise<T> {
  let answer: Promise<T> | undefined;
  return () => (answer ??= f());
}

/**
 * One session several tests of a file read (made at the first read, by whichever test comes
 * first): each read checks that it exited 0, so a broken session fails every test that reads it
 * with its stderr, named as `what`.
 */
export function sharedSession<T extends { code: number | null; stderr: string }>(
  what: string,
  make: () => Promise<T>,
): () => Promise<T> {
  const made = once(make);
  return async () => {
    const s = await made();
    expect(s.code, `the shared ${what} session exits 0; stderr: ${s.stderr}`).toBe(0);
    return s;
  };
}

/**
 * Runs `prompts` (name → prompt) as the turns of one stream-json session, each sent once the one
 * before has its result, for checks of per-turn behaviour that share one process. Returns each
 * turn's requests and stdout lines, and the exit; a turn that never ends rejects, naming `label`
 * and the turn. `opts.args` must make a stream-json session (STREAM_ARGS and more); `opts.onStart`
 * gets the process first (a host that answers its control requests).
 */
export async function runTurns<K extends string>(
  label: string,
  opts: RunOptions & { api: FakeApi; onStart?: (p: AgentProcess) => void },
  prompts: Record<K, string>,
): Promise<{ code: number | null; stderr: string; turns: Record<K, TurnRecord> }> {
  const p = startAgent(opts);
  opts.onStart?.(p);
  const turns = {} as Record<K, TurnRecord>;
  let results = 0;
  for (const name of Object.keys(prompts) as K[]) {
    const [req0, line0] = [opts.api.requests.length, p.lines.length];
    const want = ++results;
    let seen = 0;
    p.sendRaw(userLine(prompts[name]));
    await p
      .waitFor((m) => m.type === 'result' && ++seen === want)
      .catch((e: Error) => {
        p.child.kill('SIGKILL');
        throw new Error(`${label}, turn "${name}": ${e.message}`);
      });
    const lines = p.lines.slice(line0);
    turns[name] = { requests: opts.api.requests.slice(req0), lines, json: () => lines.map((l) => JSON.parse(l)) };
  }
  p.endInput();
  const { code } = await p.exited;
  return { code, stderr: p.stderr(), turns };
}
