// The system prompt, as two text blocks: a static one (the same for every session of this version
// and configuration, so the API's prompt cache holds it across sessions and projects) and a
// per-session one (the environment, the memory folder and its index, memory files, appends).
// promptCache.ts marks each block, so the second block is the cache boundary.
//   default        static: our prompt (text/main.ts), the memory instructions when memory is on,
//                  the output style's text; per session: environment, CLAUDE.md files, the memory
//                  folder and its index, --append-system-prompt
//   --system-prompt / initialize.systemPrompt replaces the static part and the environment; a
//                  host's array prompt splits at __SYSTEM_PROMPT_DYNAMIC_BOUNDARY__ (what comes
//                  before the marker is static, what comes after it is per-session; the marker
//                  itself is never sent); memory and appends still follow
import { type EnvironmentFacts, environmentFacts, environmentText } from './environment.js';
import { type AutoMemory, memoryFolderPrompt } from './autoMemory.js';
import { MEMORY_INSTRUCTIONS } from './text/memory.js';
import { CODING_SECTIONS, MAIN_SECTIONS, STYLE_INTRO } from './text/main.js';

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
  /**
   * Where the agent runs, read once per session (on first use when not given), so every request
   * sends the same bytes; a session that runs past midnight keeps its first date.
   */
  environment?: EnvironmentFacts;
  /** The model the next request goes to (the environment block names it). */
  model?: () => string;
  /** Persistent memory (autoMemory.ts), when it is on. */
  autoMemory?: AutoMemory;
}

/** Where the agent runs, without the model lines: a subagent's environment block. */
export function envBlock(cwd: string): string {
  return environmentText(environmentFacts(cwd));
}

/** The default prompt's static part: our sections, the memory instructions, the output style. */
export function defaultStaticPrompt(style: SystemPromptParts['outputStyle'], memoryOn: boolean): string {
  const coding = !style || style.keepCodingInstructions;
  const sections = coding ? [...MAIN_SECTIONS] : [STYLE_INTRO, ...MAIN_SECTIONS.filter((s) => !CODING_SECTIONS.has(s))];
  if (memoryOn) sections.push(MEMORY_INSTRUCTIONS);
  if (style) sections.push(`# Output style: ${style.name}\n${style.prompt}`);
  return sections.join('\n\n');
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
    staticPart = defaultStaticPrompt(p.outputStyle, p.autoMemory !== undefined);
    p.environment ??= environmentFacts(p.cwd);
    dynamic = [environmentText(p.environment, p.model?.())];
  }
  dynamic.push(p.memory ?? '');
  if (p.autoMemory) dynamic.push(memoryFolderPrompt(p.autoMemory));
  dynamic.push(...p.append);
  const dynamicText = dynamic.filter((x) => x.trim() !== '').join('\n\n');
  return [staticPart, dynamicText].filter((t) => t.trim() !== '').map((text) => ({ type: 'text' as const, text }));
}

/** The system prompt as plain text (the terminal banner, token estimates). */
export function systemPromptText(blocks: SystemBlocks): string {
  return blocks.map((b) => b.text).join('\n\n');
}
