// The shell lines and file references of a command, run under the session's permissions: a
// session deny rule always wins; what the session would ask about runs only when the command's own
// `allowed-tools` allows it (there is no one to ask mid-expansion); a sandboxed session does not
// run them unsandboxed. Refusals name the line and the rule to add.
import { readFile, stat } from 'node:fs/promises';
import { createPermissionState, decidePermission, resolvePath, type PermissionState } from '../permissions/index.js';
import { runShellCommand } from '../util/processGroup.js';
import type { Tool } from '../../tools/tool.js';
import { callFacts } from '../../tools/toolCall.js';
import type { ExpandIO } from './expand.js';
import type { MarkdownCommand } from './markdownCommands.js';

const SHELL_TIMEOUT_MS = 120_000;
const MAX_OUTPUT_CHARS = 30_000;
const MAX_FILE_CHARS = 100_000;

function allowed(
  state: PermissionState,
  cmd: MarkdownCommand,
  tool: Tool | undefined,
  toolName: string,
  input: unknown,
): { ok: true } | { ok: false; why: string } {
  // Asked of the tool once, for both decisions below.
  const call = callFacts(tool, toolName, input);
  const d = decidePermission(state, { call });
  if (d.behavior === 'allow') return { ok: true };
  if (d.behavior === 'deny') return { ok: false, why: d.message };
  if (cmd.allowedTools.length) {
    const own = createPermissionState({
      mode: 'default',
      allow: cmd.allowedTools,
      deny: [],
      ask: [],
      additionalDirectories: [],
      cwd: state.cwd,
      allowBypass: false,
    });
    if (decidePermission(own, { call }).behavior === 'allow') return { ok: true };
  }
  return {
    ok: false,
    why: `${d.message} Allow it in the command's allowed-tools front matter or the session's permission rules.`,
  };
}

export function commandIO(o: {
  cwd: string;
  tools: () => Tool[];
  permissions: () => PermissionState;
  signal?: AbortSignal;
}): (cmd: MarkdownCommand) => ExpandIO {
  return (cmd) => ({
    async shell(command) {
      const state = o.permissions();
      if (state.sandbox?.status.active)
        throw new Error(
          `\`!${command}\` was not run: shell lines of commands do not run in the sandbox, and this session is sandboxed`,
        );
      const verdict = allowed(
        state,
        cmd,
        o.tools().find((t) => t.name === 'Bash'),
        'Bash',
        { command },
      );
      if (!verdict.ok) throw new Error(`\`!${command}\` was not run: ${verdict.why}`);
      const r = await runShellCommand(command, {
        cwd: o.cwd,
        timeoutMs: SHELL_TIMEOUT_MS,
        maxOutputChars: MAX_OUTPUT_CHARS,
        ...(o.signal ? { signal: o.signal } : {}),
      });
      if (r.timedOut) throw new Error(`\`!${command}\` timed out after ${SHELL_TIMEOUT_MS / 1000} s`);
      const out = r.combined + (r.truncatedChars ? `\n[… ${r.truncatedChars} characters cut]` : '');
      return r.exitCode === 0 ? out : `${out}\n[exit code ${r.exitCode ?? r.signal}]`;
    },
    async readFile(path) {
      const abs = resolvePath(path, o.cwd).lexical;
      try {
        if (!(await stat(abs)).isFile()) return undefined;
      } catch {
        return undefined;
      }
      const verdict = allowed(
        o.permissions(),
        cmd,
        o.tools().find((t) => t.name === 'Read'),
        'Read',
        { file_path: abs },
      );
      if (!verdict.ok) throw new Error(`@${path} was not read: ${verdict.why}`);
      const text = await readFile(abs, 'utf8');
      return text.length > MAX_FILE_CHARS
        ? `${text.slice(0, MAX_FILE_CHARS)}\n[… ${text.length - MAX_FILE_CHARS} characters cut]`
        : text;
    },
  });
}
