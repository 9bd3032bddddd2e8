// Memory files: the standing instructions a user keeps in CLAUDE.md files. Which ones load follows
// the setting sources:
//   user     $CLAUDE_CONFIG_DIR/CLAUDE.md, $CLAUDE_CONFIG_DIR/rules/*.md
//   project  CLAUDE.md, .claude/CLAUDE.md, .claude/rules/*.md in every folder from the repository
//            root (the nearest folder above the cwd with .git, else the filesystem root) down to the cwd
//   local    CLAUDE.local.md in the same folders
// plus, with CLAUDE_CODE_ADDITIONAL_DIRECTORIES_CLAUDE_MD=1, the same files of each --add-dir folder.
// `@path` inside a memory file imports another file (relative to the importing file, `~/`, or
// absolute; at most 5 deep; a cycle is refused). The order is fixed (user, then the outermost
// folder first, local last) so the system prompt is byte-identical run to run and its cache holds.
// A missing or unreadable file is skipped with a note; nothing here stops a run.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import type { SettingSource } from './load.js';
import { configDir } from '../util/configDir.js';
import { logWarning } from '../util/log.js';

export type MemoryKind = 'user' | 'project' | 'local' | 'rule' | 'import' | 'additional';

export interface MemoryFile {
  path: string;
  kind: MemoryKind;
  content: string;
  /** `paths:` globs of a rule's front matter: the rule is about those files only. */
  paths?: string[];
}

export interface MemoryOptions {
  cwd: string;
  env: NodeJS.ProcessEnv;
  sources: SettingSource[];
  addDirs?: string[];
  note?: (message: string) => void;
}

/** One file larger than this is cut, with a note: memory is sent on every request. */
export const MAX_MEMORY_FILE_BYTES = 64 * 1024;
export const MAX_IMPORT_DEPTH = 5;

type YamlParse = (text: string) => unknown;

export async function loadMemoryFiles(o: MemoryOptions): Promise<MemoryFile[]> {
  const note = o.note ?? ((m: string) => logWarning(`memory: ${m}`));
  const planned: Array<[string, MemoryKind]> = [];
  const add = (path: string, kind: MemoryKind) => planned.push([path, kind]);
  if (o.sources.includes('user')) {
    const config = configDir(o.env);
    add(join(config, 'CLAUDE.md'), 'user');
    for (const rule of ruleFiles(join(config, 'rules'), note)) add(rule, 'rule');
  }
  const folders = foldersToRoot(o.cwd);
  if (o.sources.includes('project'))
    for (const dir of folders) {
      add(join(dir, 'CLAUDE.md'), 'project');
      add(join(dir, '.claude', 'CLAUDE.md'), 'project');
      for (const rule of ruleFiles(join(dir, '.claude', 'rules'), note)) add(rule, 'rule');
    }
  if (o.sources.includes('local')) for (const dir of folders) add(join(dir, 'CLAUDE.local.md'), 'local');
  if (o.addDirs?.length && truthy(o.env.CLAUDE_CODE_ADDITIONAL_DIRECTORIES_CLAUDE_MD))
    for (const dir of o.addDirs.map((d) => resolve(o.cwd, d))) {
      add(join(dir, 'CLAUDE.md'), 'additional');
      add(join(dir, '.claude', 'CLAUDE.md'), 'additional');
      for (const rule of ruleFiles(join(dir, '.claude', 'rules'), note)) add(rule, 'rule');
      if (o.sources.includes('local')) add(join(dir, 'CLAUDE.local.md'), 'additional');
    }
  // yaml loads only when there is a rule whose front matter needs it: most starts have none.
  const parse: YamlParse | undefined = planned.some(([, k]) => k === 'rule') ? (await import('yaml')).parse : undefined;
  const out: MemoryFile[] = [];
  const seen = new Set<string>();
  for (const [path, kind] of planned) addWithImports(path, kind, { out, seen, note, env: o.env, parse }, []);
  return out;
}

interface Collect {
  out: MemoryFile[];
  seen: Set<string>;
  note: (m: string) => void;
  env: NodeJS.ProcessEnv;
  parse?: YamlParse;
}

function truthy(v: string | undefined): boolean {
  return v !== undefined && ['1', 'true', 'yes', 'on'].includes(v.toLowerCase());
}

/** The repository root (nearest .git above the cwd, else the filesystem root) down to the cwd. */
export function foldersToRoot(cwd: string): string[] {
  const chain: string[] = [];
  for (let dir = resolve(cwd); ; dir = dirname(dir)) {
    chain.push(dir);
    if (exists(join(dir, '.git')) || dirname(dir) === dir) break;
  }
  return chain.reverse();
}

function exists(path: string): boolean {
  try {
    statSync(path);
    return true;
  } catch {
    return false;
  }
}

/** `.md` files of a rules folder (and its subfolders), sorted so the order never changes. */
function ruleFiles(dir: string, note: (m: string) => void): string[] {
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT')
      note(`cannot read ${dir}: ${(err as Error).message}; skipped`);
    return [];
  }
  const out: string[] = [];
  for (const e of entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
    const p = join(dir, e.name);
    if (e.isDirectory()) out.push(...ruleFiles(p, note));
    else if (e.name.endsWith('.md')) out.push(p);
  }
  return out;
}

function readMemory(path: string, note: (m: string) => void, quietIfMissing: boolean): string | undefined {
  let buf: Buffer;
  try {
    if (!statSync(path).isFile()) return undefined;
    buf = readFileSync(path);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code !== 'ENOENT' || !quietIfMissing) note(`cannot read ${path} (${code ?? (err as Error).message}); skipped`);
    return undefined;
  }
  if (buf.length > MAX_MEMORY_FILE_BYTES) {
    note(`${path} is ${buf.length} bytes; only its first ${MAX_MEMORY_FILE_BYTES} are used`);
    buf = buf.subarray(0, MAX_MEMORY_FILE_BYTES);
  }
  return buf.toString('utf8');
}

function addWithImports(path: string, kind: MemoryKind, c: Collect, stack: string[]): void {
  const { out, seen, note, env } = c;
  if (stack.includes(path)) {
    note(`${stack[stack.length - 1]} imports ${path}, which imports it back: the cycle is refused`);
    return;
  }
  if (seen.has(path)) return; // loaded already (two files import the same one)
  const raw = readMemory(path, note, kind !== 'import');
  if (raw === undefined) return;
  seen.add(path);
  const { body, paths } =
    kind === 'rule' && c.parse ? frontMatter(raw, path, note, c.parse) : { body: raw, paths: undefined };
  if (body.trim() !== '') out.push({ path, kind, content: body.trim(), ...(paths ? { paths } : {}) });
  const imports = importsOf(body);
  if (!imports.length) return;
  if (stack.length >= MAX_IMPORT_DEPTH) {
    note(`${path}: imports deeper than ${MAX_IMPORT_DEPTH} levels are not followed`);
    return;
  }
  for (const ref of imports) {
    const target = ref.startsWith('~/')
      ? join(env.HOME || homedir(), ref.slice(2))
      : isAbsolute(ref)
        ? ref
        : resolve(dirname(path), ref);
    addWithImports(target, 'import', c, [...stack, path]);
  }
}

/** `@path` references outside code fences and inline code. */
export function importsOf(text: string): string[] {
  const out: string[] = [];
  let fenced = false;
  for (const line of text.split('\n')) {
    if (/^\s*(```|~~~)/.test(line)) {
      fenced = !fenced;
      continue;
    }
    if (fenced) continue;
    const prose = line.replace(/`[^`]*`/g, '');
    for (const m of prose.matchAll(/(?:^|\s)@((?:[^\s\\]|\\ )+)/g)) {
      const ref = m[1]!.replace(/\\ /g, ' ').replace(/[.,;:!?)]+$/, '');
      // An @mention of a person is not a path: a path has a slash or a file extension.
      if (ref.includes('/') || /\.[A-Za-z0-9]+$/.test(ref)) out.push(ref);
    }
  }
  return out;
}

function frontMatter(
  raw: string,
  path: string,
  note: (m: string) => void,
  parseYaml: YamlParse,
): { body: string; paths?: string[] } {
  const m = /^---\r?\n([\s\S]*?)\r?\n---\r?\n?/.exec(raw);
  if (!m) return { body: raw };
  let data: unknown;
  try {
    data = parseYaml(m[1]!);
  } catch (err) {
    note(`${path}: front matter is not valid YAML (${(err as Error).message}); the rule applies everywhere`);
    return { body: raw.slice(m[0].length) };
  }
  const p = (data as { paths?: unknown } | null)?.paths;
  const paths =
    typeof p === 'string'
      ? p
          .split(',')
          .map((s) => s.trim())
          .filter(Boolean)
      : Array.isArray(p)
        ? p.map(String)
        : undefined;
  return { body: raw.slice(m[0].length), ...(paths?.length ? { paths } : {}) };
}

const KIND_LABEL: Record<MemoryKind, string> = {
  user: "the user's private instructions for every project",
  project: 'project instructions, checked into the codebase',
  local: "the user's private instructions for this project",
  rule: 'a project rule',
  import: 'imported by a memory file',
  additional: 'instructions of an added directory',
};

/** The memory files as one block of the system prompt; empty when there are none. */
export function formatMemory(files: MemoryFile[]): string {
  if (!files.length) return '';
  const parts = files.map((f) => {
    const scope = f.paths ? ` It applies only when working with files matching: ${f.paths.join(', ')}.` : '';
    return `Contents of ${f.path} (${KIND_LABEL[f.kind]}):${scope}\n\n${f.content}`;
  });
  return [
    '<memory>',
    'The instructions below come from the memory files (CLAUDE.md) of the user and the project. Follow them; where they differ from the guidance above, they win.',
    '',
    parts.join('\n\n'),
    '</memory>',
  ].join('\n');
}
