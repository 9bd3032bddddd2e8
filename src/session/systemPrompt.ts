// The system prompt: ours by default, the host's when it gives one, with appends on top.
import { platform } from 'node:os';

export interface SystemPromptParts {
  cwd: string;
  /** Replaces the default when non-empty (--system-prompt, initialize.systemPrompt). */
  custom?: string;
  /** Appended (--append-system-prompt, initialize.appendSystemPrompt). */
  append: string[];
}

/** Where the agent runs: the same block for the main agent and every subagent. */
export function envBlock(cwd: string): string {
  return ['<env>', `Working directory: ${cwd}`, `Platform: ${platform()}`, `Today's date: ${new Date().toISOString().slice(0, 10)}`, '</env>'].join('\n');
}

export function buildSystemPrompt(p: SystemPromptParts): string {
  const base =
    p.custom && p.custom.trim() !== ''
      ? p.custom
      : [
          'You are an AI agent running in agent-runtime, a headless agent runtime. You help the user with software engineering tasks by using the tools you are given.',
          'Use the tools to inspect and change files and to run commands; prefer reading a file before editing it. Be concise. When the task is done, answer with a short summary.',
          '',
          envBlock(p.cwd),
        ].join('\n');
  return [base, ...p.append.filter((a) => a.trim() !== '')].join('\n\n');
}
