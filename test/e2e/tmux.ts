// The agent's terminal UI end to end: bin/agent in a real terminal (a tmux pane of a private tmux
// server), driven by keystrokes, the screen read back as a person sees it (capture-pane).
import { execFileSync, spawnSync } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { AGENT_BIN, tempDir } from './harness.js';

export const hasTmux = spawnSync('tmux', ['-V'], { stdio: 'ignore' }).status === 0;

const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
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
  );
  // Keep the pane after the agent exits, and pass Esc through at once.
  tmux('set-option', '-g', 'remain-on-exit', 'on');
  tmux('set-option', '-s', 'escape-time', '0');
  const screen = () =>
    tmux('capture-pane', '-p', '-t', '0')
      .split('\n')
      .map((l) => l.trimEnd())
      .join('\n')
      .replace(/\n+$/, '');
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
    type: (text) => void tmux('send-keys', '-t', '0', '-l', text),
    keys: (...names) => void tmux('send-keys', '-t', '0', ...names),
    paste: (text) => {
      tmux('set-buffer', '--', text);
      tmux('paste-buffer', '-t', '0');
    },
    pasteBracketed: (text) => {
      tmux('set-buffer', '--', text);
      tmux('paste-buffer', '-p', '-t', '0');
    },
    resize: (cols, rows) => void tmux('resize-window', '-t', '0', '-x', String(cols), '-y', String(rows)),
    async waitFor(pattern, timeoutMs = 15_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const s = screen();
        if (pattern.test(s)) return s;
        if (Date.now() > deadline) throw new Error(`timed out waiting for ${pattern}; screen:\n${s}`);
        await new Promise((r) => setTimeout(r, 40));
      }
    },
    async exited(timeoutMs = 15_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const st = status();
        if (/^\d+$/.test(st)) return Number(st);
        if (Date.now() > deadline) throw new Error(`the agent did not exit; screen:\n${screen()}`);
        await new Promise((r) => setTimeout(r, 40));
      }
    },
    close() {
      spawnSync('tmux', ['-L', socket, 'kill-server'], { stdio: 'ignore' });
      rmSync(configDir, { recursive: true, force: true });
    },
  };
}

/** The prompt editor is up and empty (the UI is ready for a line). */
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
