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

/** System prompt blocks: each one ends a cacheable prefix (see src/loop/promptCache.ts). */
export type SystemPrompt = Array<{ type: 'text'; text: string }>;

export const DEFAULT_INSTRUCTIONS = [
  'You are an AI agent running in agent-runtime, a headless agent runtime. You help the user with software engineering tasks by using the tools you are given.',
  'Use the tools to inspect and change files and to run commands; prefer reading a file before editing it. Be concise. When the task is done, answer with a short summary.',
].join('\n');

/**
 * [static block, per-session block]: the static block (our instructions, or the host's own prompt)
 * is the same for every session and so is cached across sessions; the per-session block (the
 * environment and the appends) follows it, so a change there never invalidates the first.
 */
export function buildSystemPrompt(p: SystemPromptParts): SystemPrompt {
  const custom = p.custom && p.custom.trim() !== '' ? p.custom : undefined;
  const appends = p.append.filter((a) => a.trim() !== '');
  const session = custom ? appends : [envBlock(p.cwd), ...appends];
  const blocks: SystemPrompt = [{ type: 'text', text: custom ?? DEFAULT_INSTRUCTIONS }];
  if (session.length) blocks.push({ type: 'text', text: session.join('\n\n') });
  return blocks;
}
