// The agent's interactive terminal mode under a real pseudo-terminal (util-linux `script` gives it
// one), driven by writing keystrokes and reading what a person would see.
import { spawn, type ChildProcess } from 'node:child_process';
import { AGENT_BIN, tempDir } from './harness.js';

export const ESC = String.fromCharCode(27);
const ANSI = new RegExp(`${ESC}\\[[0-9;?]*[A-Za-z]|${ESC}[()][A-Z0-9]|\\r`, 'g');

export interface Tty {
  child: ChildProcess;
  raw(): string;
  /** Everything shown so far, ANSI codes and carriage returns stripped. */
  screen(): string;
  type(keys: string): void;
  /** Resolves when the screen after `from` matches; returns the index just past the match. */
  waitFor(pattern: RegExp, from?: number, timeoutMs?: number): Promise<number>;
  exited: Promise<number | null>;
}

const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

export function startTty(apiUrl: string, args: string[], cwd: string, env: Record<string, string> = {}): Tty {
  const cmd = [AGENT_BIN, ...args].map(quote).join(' ');
  const child = spawn('script', ['-qfec', cmd, '/dev/null'], {
    cwd,
    env: {
      ...process.env,
      TERM: 'xterm',
      ANTHROPIC_API_KEY: 'test-key',
      ANTHROPIC_BASE_URL: apiUrl,
      AGENT_MAX_RETRIES: '0',
      CLAUDE_CONFIG_DIR: tempDir('agent-config-'),
      // The agent's session temp folder outlives it: one the test file removes.
      TMPDIR: tempDir('agent-tmp-'),
      ...env,
    },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.setEncoding('utf8');
  child.stdout!.on('data', (c: string) => (out += c));
  child.stderr!.on('data', (c: Buffer) => (out += c.toString()));
  child.stdin!.on('error', () => {});
  const screen = () => out.replace(ANSI, '');
  const exited = new Promise<number | null>((res) => child.on('close', (code) => res(code)));
  return {
    child,
    raw: () => out,
    screen,
    type: (keys) => child.stdin!.write(keys),
    async waitFor(pattern, from = 0, timeoutMs = 15_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const s = screen().slice(from);
        const m = pattern.exec(s);
        if (m) return from + m.index + m[0].length;
        if (Date.now() > deadline) throw new Error(`timed out waiting for ${pattern}; screen:\n${screen()}`);
        await new Promise((r) => setTimeout(r, 25));
      }
    },
    exited,
  };
}

/** After the prompt `> ` shows, type one line. Returns the screen position after the prompt. */
export async function submit(t: Tty, line: string, from: number): Promise<number> {
  const at = await t.waitFor(/^> $|\n> /m, from);
  t.type(`${line}\r`);
  return at;
}
