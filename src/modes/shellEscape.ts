// `!command` at the terminal: the person runs a shell command themselves; the command and its
// output then go to the model as one user message, in the tags the reference uses (measured:
// `<bash-input>…</bash-input>` then `<bash-stdout>…</bash-stdout><bash-stderr>…</bash-stderr>`, stderr
// folded into stdout, and the model answers it as a turn).
import { spawn } from 'node:child_process';

/** Output kept for the model (the head and the tail of a longer one). */
const MAX_CHARS = 30_000;

export interface ShellResult {
  output: string;
  exitCode: number | null;
}

/** Runs the command in its own process group, killed whole when `signal` aborts. */
export function runShell(command: string, cwd: string, signal: AbortSignal): Promise<ShellResult> {
  return new Promise((resolve) => {
    const child = spawn(process.env.SHELL || 'bash', ['-c', command], {
      cwd,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    const add = (d: Buffer) => {
      out += d.toString('utf8');
    };
    child.stdout.on('data', add);
    child.stderr.on('data', add);
    const kill = () => {
      try {
        if (child.pid) process.kill(-child.pid, 'SIGKILL');
      } catch {
        // already gone
      }
    };
    signal.addEventListener('abort', kill, { once: true });
    child.on('error', (e) => {
      signal.removeEventListener('abort', kill);
      resolve({ output: `${out}${e.message}`, exitCode: null });
    });
    child.on('close', (code) => {
      signal.removeEventListener('abort', kill);
      resolve({ output: clip(out.replace(/\n+$/, '')), exitCode: signal.aborted ? null : code });
    });
  });
}

function clip(s: string): string {
  if (s.length <= MAX_CHARS) return s;
  const half = MAX_CHARS / 2;
  return `${s.slice(0, half)}\n… ${s.length - MAX_CHARS} characters left out …\n${s.slice(-half)}`;
}

/** The user message the model gets for a `!command`. */
export function shellMessage(command: string, r: ShellResult): Array<{ type: 'text'; text: string }> {
  return [
    { type: 'text', text: `<bash-input>${command}</bash-input>\n` },
    { type: 'text', text: `<bash-stdout>${r.output}</bash-stdout><bash-stderr></bash-stderr>` },
  ];
}
