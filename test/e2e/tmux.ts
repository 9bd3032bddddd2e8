// The agent's terminal UI end to end: bin/agent in a real terminal (a tmux pane of a private tmux
// server), driven by keystrokes, the screen read back as a person sees it (capture-pane).
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { it as base } from 'vitest';
import { AGENT_BIN, type FakeApi, tempDir } from './harness.js';

export const hasTmux = spawnSync('tmux', ['-V'], { stdio: 'ignore' }).status === 0;

const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
/** One word of a tmux command line (its parser joins quoted pieces as a shell does, and expands nothing inside single quotes). */
const tmuxWord = (s: string) => `'${s.replace(/'/g, `'"'"'`)}'`;
let serial = 0;

export interface Term {
  /** The visible screen, one string (trailing blanks trimmed per line). */
  screen(): string;
  /** The screen with its colour codes (capture-pane -e). */
  rawScreen(): string;
  /** Literal text typed. */
  type(text: string): void;
  /** Text pasted as a terminal pastes it (tmux's paste-buffer: one write, line ends as \r). */
  paste(text: string): void;
  /** The same, bracketed (ESC[200~ … ESC[201~) when the program has asked for it, as terminals do. */
  pasteBracketed(text: string): void;
  /** tmux key names: Enter, Escape, BTab (Shift+Tab), C-c, C-d, Up … */
  keys(...names: string[]): void;
  resize(cols: number, rows: number): void;
  /** Resolves with the screen once it matches (or throws with the screen after the timeout). */
  waitFor(pattern: RegExp, timeoutMs?: number): Promise<string>;
  /** The exit status once the agent has exited. */
  exited(timeoutMs?: number): Promise<number>;
  close(): void;
}

export function startTerm(
  apiUrl: string,
  args: string[],
  cwd: string,
  opts: { env?: Record<string, string>; cols?: number; rows?: number } = {},
): Term {
  const socket = `agent-e2e-${process.pid}-${serial++}`;
  const configDir = tempDir('agent-config-');
  const env = {
    TERM: 'xterm-256color',
    ANTHROPIC_API_KEY: 'test-key',
    ANTHROPIC_BASE_URL: apiUrl,
    AGENT_MAX_RETRIES: '0',
    CLAUDE_CONFIG_DIR: configDir,
    // The agent's session temp folder outlives it: one the test file removes.
    TMPDIR: tempDir('agent-tmp-'),
    ...opts.env,
  };
  const exports = Object.entries(env)
    .map(([k, v]) => `export ${k}=${quote(v)};`)
    .join(' ');
  const unset = opts.env?.NO_COLOR === undefined ? 'unset NO_COLOR;' : '';
  // The exit status goes to a file: tmux 3.3 does not always record a dead pane's status.
  const statusFile = join(configDir, 'exit-status');
  const cmd = `${unset} ${exports} cd ${quote(cwd)} && ${[AGENT_BIN, ...args].map(quote).join(' ')}; echo $? > ${quote(statusFile)}`;
  const tmux = (...a: string[]) => execFileSync('tmux', ['-L', socket, ...a], { encoding: 'utf8' });
  // One tmux process: the session, then (`;` separates tmux commands) keep the pane after the
  // agent exits and pass Esc through at once.
  tmux(
    '-f',
    '/dev/null',
    'new-session',
    '-d',
    '-x',
    String(opts.cols ?? 80),
    '-y',
    String(opts.rows ?? 30),
    'sh',
    '-c',
    cmd,
    ';',
    'set-option',
    '-g',
    'remain-on-exit',
    'on',
    ';',
    'set-option',
    '-s',
    'escape-time',
    '0',
  );
  const screen = () => trimScreen(tmux('capture-pane', '-p', '-t', '0').split('\n'));
  const poll = controlClient(socket);
  // Keystrokes, pastes and resizes go through the control client too, in order with its screen
  // reads; a command it refused fails the next waitFor or exited. A text with a line break in it
  // cannot be one control-mode line: that one is a tmux process of its own.
  const input = (...a: string[]) => {
    if (a.some((w) => /[\r\n]/.test(w))) tmux(...a);
    else poll.send(a.map(tmuxWord).join(' '));
  };
  const status = () => {
    try {
      return readFileSync(statusFile, 'utf8').trim();
    } catch {
      return '';
    }
  };
  return {
    screen,
    rawScreen: () => tmux('capture-pane', '-p', '-e', '-t', '0'),
    type: (text) => input('send-keys', '-t', '0', '-l', text),
    keys: (...names) => input('send-keys', '-t', '0', ...names),
    paste: (text) => {
      input('set-buffer', '--', text);
      input('paste-buffer', '-t', '0');
    },
    pasteBracketed: (text) => {
      input('set-buffer', '--', text);
      input('paste-buffer', '-p', '-t', '0');
    },
    resize: (cols, rows) => input('resize-window', '-t', '0', '-x', String(cols), '-y', String(rows)),
    async waitFor(pattern, timeoutMs = 15_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const s = await poll.screen();
        if (pattern.test(s)) return s;
        if (Date.now() > deadline) throw new Error(`timed out waiting for ${pattern}; screen:\n${s}`);
        await new Promise((r) => setTimeout(r, 40));
      }
    },
    async exited(timeoutMs = 15_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        poll.check();
        const st = status();
        if (/^\d+$/.test(st)) return Number(st);
        if (Date.now() > deadline) throw new Error(`the agent did not exit; screen:\n${screen()}`);
        await new Promise((r) => setTimeout(r, 40));
      }
    },
    close() {
      poll.close();
      spawnSync('tmux', ['-L', socket, 'kill-server'], { stdio: 'ignore' });
      rmSync(configDir, { recursive: true, force: true });
    },
  };
}

const trimScreen = (lines: string[]) =>
  lines
    .map((l) => l.trimEnd())
    .join('\n')
    .replace(/\n+$/, '');

/**
 * A tmux control-mode client (tmux -C) of the terminal's server, which `waitFor` polls the screen
 * through: one client for the terminal's life instead of a tmux process per poll, started from the
 * test worker (a large process to fork) every 40 ms and waited for synchronously, which kept the
 * worker from doing anything else meanwhile. Replies come as %begin … %end blocks in the order the
 * commands were sent; a block whose last flag is 1 answers a command of this client. Notifications
 * (%output and the like) come outside blocks and are ignored.
 */
function controlClient(socket: string) {
  const child = spawn('tmux', ['-L', socket, '-C', 'attach'], { stdio: ['pipe', 'pipe', 'ignore'] });
  const waiting: Array<(reply: string[] | Error) => void> = [];
  let block: string[] | null = null;
  let partial = '';
  let ended = false;
  child.stdin.on('error', () => {});
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (chunk: string) => {
    partial += chunk;
    for (let nl = partial.indexOf('\n'); nl !== -1; nl = partial.indexOf('\n')) {
      const line = partial.slice(0, nl);
      partial = partial.slice(nl + 1);
      if (block === null) {
        if (/^%begin \d+ \d+ 1$/.test(line)) block = [];
      } else if (/^%(end|error) \d+ \d+ 1$/.test(line)) {
        const reply = line.startsWith('%error') ? new Error(`tmux: ${block.join('\n')}`) : block;
        block = null;
        waiting.shift()?.(reply);
      } else block.push(line);
    }
  });
  child.on('close', () => {
    ended = true;
    for (const w of waiting.splice(0)) w(new Error('the tmux control client ended'));
  });
  const run = (command: string) =>
    new Promise<string[]>((resolve, reject) => {
      if (ended) return reject(new Error('the tmux control client ended'));
      waiting.push((reply) => (reply instanceof Error ? reject(reply) : resolve(reply)));
      child.stdin.write(`${command}\n`);
    });
  let refused: Error | null = null;
  /** Throws what tmux answered to a command sent without waiting, if it refused one. */
  const check = () => {
    if (refused) throw refused;
  };
  return {
    screen: async () => {
      const lines = await run('capture-pane -p -t 0');
      check();
      return trimScreen(lines);
    },
    /** Sends a command without waiting for its reply (replies come in order, before the next screen's). */
    send: (command: string) =>
      void run(command).catch((err: Error) => {
        if (!ended) refused ??= new Error(`${err.message} (for: ${command})`);
      }),
    check,
    close: () => child.kill(),
  };
}

/** The prompt editor is up and empty (the UI is ready for a line). */
/**
 * A tmux command on the private server `socket`, run with the test's environment minus the API's and
 * the agent's variables and `TMUX`: a server (and so a new pane) started by it knows nothing the lead
 * did not hand over itself.
 */
export function privateTmux(socket: string): (...args: string[]) => string {
  const env = Object.fromEntries(
    Object.entries(process.env).filter(
      ([k]) => !k.startsWith('ANTHROPIC_') && !k.startsWith('CLAUDE_') && k !== 'TMUX',
    ),
  );
  return (...a) =>
    execFileSync('tmux', ['-L', socket, ...a], { encoding: 'utf8', env, stdio: ['ignore', 'pipe', 'pipe'] });
}

export const READY = /│ > {2,}│/;

/** Waits for an empty prompt, types a line and sends it. */
export async function send(t: Term, line: string): Promise<void> {
  await t.waitFor(READY);
  t.type(line);
  t.keys('Enter');
}

/**
 * What the person typed in the latest user message that has text: its text blocks less the
 * runtime's own `<system-reminder>` blocks (deferred tools, attached files).
 */
export function typedText(req: { body?: any }): string {
  const messages: any[] = Array.isArray(req.body?.messages) ? req.body.messages : [];
  for (let i = messages.length - 1; i >= 0; i--) {
    if (messages[i]?.role !== 'user') continue;
    const c = messages[i].content;
    const texts: string[] =
      typeof c === 'string'
        ? [c]
        : Array.isArray(c)
          ? c.filter((b: any) => b?.type === 'text' && typeof b.text === 'string').map((b: any) => b.text)
          : [];
    const t = texts.filter((x) => !x.startsWith('<system-reminder>')).join('\n');
    if (t) return t;
  }
  return '';
}

/**
 * One test's fake API, terminals and folders, closed when the test ends: the terminal UI's tests
 * run side by side (most of their time is the UI waiting on the fake model or the clock), so none
 * of this can live in the test file's module scope.
 */
export class UiScope {
  private fake?: FakeApi;
  private readonly terms: Term[] = [];
  private readonly dirs: string[] = [];

  get api(): FakeApi {
    if (!this.fake) throw new Error('the test has not started its fake API');
    return this.fake;
  }
  set api(api: FakeApi) {
    this.fake = api;
  }

  /** A temp folder removed when the test ends. */
  dir = (prefix?: string): string => {
    const d = tempDir(prefix);
    this.dirs.push(d);
    return d;
  };

  /** bin/agent in a terminal of its own, against this test's fake API. */
  start = (args: string[], cwd: string, opts: Parameters<typeof startTerm>[3] = {}): Term => {
    const t = startTerm(this.api.url, args, cwd, opts);
    this.terms.push(t);
    return t;
  };

  async close(): Promise<void> {
    for (const t of this.terms.splice(0)) t.close();
    await this.fake?.close();
    for (const d of this.dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  }
}

/** `it` with a `ui` fixture: the test's UiScope, closed after it. */
export const uiIt = base.extend<{ ui: UiScope }>({
  // biome-ignore lint/correctness/noEmptyPattern: vitest reads a fixture's dependencies from this pattern
  ui: async ({}, use) => {
    const ui = new UiScope();
    try {
      await use(ui);
    } finally {
      await ui.close();
    }
  },
});
