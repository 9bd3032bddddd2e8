// The system prompt, as two text blocks: a static one (the same for every session of this
// configuration, so the API's prompt cache can hold it) and a per-session one (where the agent
// runs, the host's dynamic part, memory files, appends). Ours by default; the host's when it
// gives one. A host's array prompt splits at __SYSTEM_PROMPT_DYNAMIC_BOUNDARY__: what comes before
// the marker is static, what comes after it is per-session; the marker itself is never sent.
import { platform } from 'node:os';

export const DYNAMIC_BOUNDARY = '__SYSTEM_PROMPT_DYNAMIC_BOUNDARY__';

export type SystemBlocks = Array<{ type: 'text'; text: string }>;

export interface SystemPromptParts {
  cwd: string;
  /** Replaces the default when non-empty (--system-prompt, initialize.systemPrompt). */
  custom?: string | string[];
  /** Appended (--append-system-prompt, initialize.appendSystemPrompt). */
  append: string[];
  /** The memory files, formatted (src/settings/memory.ts); empty when there are none. */
  memory?: string;
  /** The output style in use (the `outputStyle` setting), unless it is `default`. Joins the default prompt only. */
  outputStyle?: { name: string; prompt: string; keepCodingInstructions: boolean };
}

/** Where the agent runs: the same block for the main agent and every subagent. */
export function envBlock(cwd: string): string {
  return [
    '<env>',
    `Working directory: ${cwd}`,
    `Platform: ${platform()}`,
    `Today's date: ${new Date().toISOString().slice(0, 10)}`,
    '</env>',
  ].join('\n');
}

const DEFAULT_STATIC = [
  'You are an AI agent running in agent-runtime, a headless agent runtime. You help the user with software engineering tasks by using the tools you are given.',
  'Use the tools to inspect and change files and to run commands; prefer reading a file before editing it. Be concise. When the task is done, answer with a short summary.',
].join('\n');

/** The default prompt's opening without its software-engineering instructions (a style that drops them). */
const STYLE_ONLY_STATIC =
  'You are an AI agent running in agent-runtime, a headless agent runtime. You help the user by using the tools you are given, answering as the output style below asks.';

/** The default prompt's static part with the output style's instructions, when one is in use. */
function defaultStatic(style: SystemPromptParts['outputStyle']): string {
  if (!style) return DEFAULT_STATIC;
  return `${style.keepCodingInstructions ? DEFAULT_STATIC : STYLE_ONLY_STATIC}\n\n# Output style: ${style.name}\n${style.prompt}`;
}

/** A host's prompt split at the boundary marker: [static part, dynamic part]. */
export function splitAtBoundary(custom: string | string[]): [string, string] {
  const items = typeof custom === 'string' ? [custom] : custom;
  const at = items.indexOf(DYNAMIC_BOUNDARY);
  const join = (xs: string[]) => xs.filter((x) => x.trim() !== '').join('\n\n');
  // A marker inside an item (a string prompt that holds it) splits there too.
  if (at < 0) {
    const text = items.join('\n\n');
    const i = text.indexOf(DYNAMIC_BOUNDARY);
    if (i < 0) return [text, ''];
    return [text.slice(0, i).trim(), text.slice(i + DYNAMIC_BOUNDARY.length).trim()];
  }
  return [join(items.slice(0, at)), join(items.slice(at + 1).filter((x) => x !== DYNAMIC_BOUNDARY))];
}

function hasCustom(custom: SystemPromptParts['custom']): custom is string | string[] {
  if (custom === undefined) return false;
  return typeof custom === 'string'
    ? custom.trim() !== ''
    : custom.some((x) => x.trim() !== '' && x !== DYNAMIC_BOUNDARY);
}

export function buildSystemPrompt(p: SystemPromptParts): SystemBlocks {
  let staticPart: string;
  let dynamic: string[];
  if (hasCustom(p.custom)) {
    const [before, after] = splitAtBoundary(p.custom);
    staticPart = before;
    dynamic = [after];
  } else {
    staticPart = defaultStatic(p.outputStyle);
    dynamic = [envBlock(p.cwd)];
  }
  dynamic.push(p.memory ?? '', ...p.append);
  const dynamicText = dynamic.filter((x) => x.trim() !== '').join('\n\n');
  return [staticPart, dynamicText].filter((t) => t.trim() !== '').map((text) => ({ type: 'text' as const, text }));
}

/** The system prompt as plain text (the terminal banner, token estimates). */
export function systemPromptText(blocks: SystemBlocks): string {
  return blocks.map((b) => b.text).join('\n\n');
}
