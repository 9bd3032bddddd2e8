// A hook's answer → HookResult. Shared by command hooks (stdout) and callback hooks (response).
import { hookOutputSchema, type HookResult } from './events.js';

export function resultFromValue(value: unknown, who: string, warn: (msg: string) => void): HookResult {
  if (value === undefined || value === null) return { kind: 'none' };
  const parsed = hookOutputSchema.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    warn(
      `${who} returned output that is not valid hook output (${issue.path.join('.') || 'top level'}: ${issue.message}); ignored`,
    );
    return { kind: 'none' };
  }
  // {async:true}: the hook goes on by itself; there is nothing to wait for or merge.
  if (parsed.data.async === true) return { kind: 'none' };
  return { kind: 'output', output: parsed.data };
}

/** stdout of a command hook that exited 0: JSON output when it parses as such, else plain text. */
export function resultFromStdout(stdout: string, who: string, warn: (msg: string) => void): HookResult {
  const text = stdout.trim();
  if (text === '') return { kind: 'none' };
  if (text.startsWith('{')) {
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      return { kind: 'text', text };
    }
    return resultFromValue(value, who, warn);
  }
  return { kind: 'text', text };
}
