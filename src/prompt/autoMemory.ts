// Persistent memory: a folder per project under the config dir where the model keeps facts that
// outlive a conversation, one file each, with a MEMORY.md index loaded into every session.
// The layout is the reference CLI's (measured against its binary, v2.1.330), so a user moving
// between the two keeps their memories:
//   folder  $CLAUDE_CONFIG_DIR/projects/<project slug>/memory/, the project being the git
//           repository's root (the main checkout's, for a linked worktree), else the cwd;
//           the `autoMemoryDirectory` setting (`~/` expanded) moves it, except from the
//           project's checked-in settings file
//   on/off  CLAUDE_CODE_DISABLE_AUTO_MEMORY=1 turns it off and =0 on, over any setting;
//           otherwise the `autoMemoryEnabled` setting; on by default
//   index   MEMORY.md: at most 200 lines and 25,000 bytes are loaded, whole lines only
// A custom folder inside the git checkout is refused: memories are never written into a repository.
import { mkdirSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join, resolve, sep } from 'node:path';
import type { LoadedFile } from '../settings/load.js';
import { isWithin } from '../permissions/paths.js';
import { configDir, projectSlug } from '../transcript/transcript.js';
import type { GitFacts } from './environment.js';
import { memoryFolderText } from './text/memory.js';

export const MEMORY_INDEX = 'MEMORY.md';
export const MAX_INDEX_LINES = 200;
export const MAX_INDEX_BYTES = 25_000;
export const DISABLE_ENV = 'CLAUDE_CODE_DISABLE_AUTO_MEMORY';

export interface AutoMemory {
  /** The folder, absolute, ending in a separator. */
  dir: string;
  /** The index as loaded (cut to the limits). */
  index: string;
  /** Said to the model when the index was cut. */
  note?: string;
}

export interface AutoMemoryOptions {
  cwd: string;
  env: NodeJS.ProcessEnv;
  git?: GitFacts;
  /** The loaded settings files, lowest precedence first. */
  files: LoadedFile[];
  warn: (message: string) => void;
}

function envSwitch(v: string | undefined): boolean | undefined {
  const s = v?.trim().toLowerCase();
  if (s === undefined || s === '') return undefined;
  if (['1', 'true', 'yes', 'on'].includes(s)) return false;
  if (['0', 'false', 'no', 'off'].includes(s)) return true;
  return undefined;
}

/** The last (highest-precedence) value of a settings key among `files`. */
function lastSetting(files: LoadedFile[], key: string): unknown {
  let out: unknown;
  for (const f of files) {
    const v = (f.settings as Record<string, unknown>)[key];
    if (v !== undefined) out = v;
  }
  return out;
}

export function autoMemoryEnabled(env: NodeJS.ProcessEnv, files: LoadedFile[]): boolean {
  return envSwitch(env[DISABLE_ENV]) ?? lastSetting(files, 'autoMemoryEnabled') !== false;
}

/**
 * The project's memory folder. The default one is in the config dir, outside any repository; a
 * custom folder inside the git checkout is refused (with a warning) for the default one.
 */
export function autoMemoryDir(o: AutoMemoryOptions): string {
  const project = o.git?.root ?? resolve(o.cwd);
  const home = o.env.HOME || homedir();
  // The checked-in settings file may not point memories elsewhere: a cloned repository could
  // otherwise have the model write wherever its author chose.
  const custom = lastSetting(
    o.files.filter((f) => f.source !== 'project'),
    'autoMemoryDirectory',
  );
  if (typeof custom === 'string' && custom.trim() !== '') {
    const t = custom.trim();
    const dir = resolve(t === '~' ? home : t.startsWith('~/') ? join(home, t.slice(2)) : resolve(o.cwd, t));
    const git = o.git;
    if (!git || !(isWithin(dir, git.root) || isWithin(dir, git.checkout))) return dir + sep;
    o.warn(
      `autoMemoryDirectory ${dir} is inside the git repository ${git.root}; memories are never written into a repository, so the default folder is used`,
    );
  }
  return join(configDir(o.env), 'projects', projectSlug(project), 'memory') + sep;
}

/** MEMORY.md cut to the limits, at a line boundary; the note tells the model what was left out. */
export function loadIndex(text: string): { index: string; note?: string } {
  const lines = text.replace(/\r\n/g, '\n').split('\n');
  if (lines.at(-1) === '') lines.pop();
  const kept: string[] = [];
  let bytes = 0;
  for (const line of lines) {
    const size = Buffer.byteLength(line, 'utf8') + 1;
    if (kept.length >= MAX_INDEX_LINES || bytes + size > MAX_INDEX_BYTES) break;
    kept.push(line);
    bytes += size;
  }
  if (kept.length === lines.length) return { index: kept.join('\n') };
  const cut = lines.length - kept.length;
  return {
    index: kept.join('\n'),
    note: `Note: ${MEMORY_INDEX} has ${lines.length} lines and ${Buffer.byteLength(text, 'utf8')} bytes; only the first ${kept.length} lines fit (the limits are ${MAX_INDEX_LINES} lines and ${MAX_INDEX_BYTES} bytes), so ${cut} were left out, from line ${kept.length + 1} on. Shorten the index: one short line per memory, with the detail in the memory files.`,
  };
}

/** The session's memory: the folder made if missing, its index read. Undefined when it is off. */
export function setupAutoMemory(o: AutoMemoryOptions): AutoMemory | undefined {
  if (!autoMemoryEnabled(o.env, o.files)) return undefined;
  const dir = autoMemoryDir(o);
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
  } catch (err) {
    o.warn(
      `cannot create the memory folder ${dir} (${(err as Error).message}); persistent memory is off for this session`,
    );
    return undefined;
  }
  let text = '';
  try {
    text = readFileSync(join(dir, MEMORY_INDEX), 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code !== 'ENOENT')
      o.warn(`cannot read ${join(dir, MEMORY_INDEX)} (${code ?? (err as Error).message}); the index is left out`);
  }
  return { dir, ...loadIndex(text) };
}

/** The per-session part: the folder and its index (the instructions are static: text/memory.ts). */
export function memoryFolderPrompt(m: AutoMemory): string {
  return memoryFolderText(m.dir, m.index, m.note);
}
