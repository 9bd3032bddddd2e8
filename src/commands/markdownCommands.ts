// Custom slash commands from `.claude/commands/**/*.md` (project) and `$CLAUDE_CONFIG_DIR/commands`
// (user). A file's path names the command: `frontend/test.md` is `/frontend:test`. Optional YAML
// front matter: description, argument-hint, allowed-tools, model; the body is the prompt template.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { splitFrontMatter } from '../util/frontMatter.js';

export type CommandSource = 'project' | 'user' | 'plugin';

export interface MarkdownCommand {
  name: string;
  description: string;
  argumentHint: string;
  allowedTools: string[];
  model?: string;
  body: string;
  source: CommandSource;
  file: string;
}

export interface CommandFileProblem {
  file: string;
  problem: string;
}

const MAX_DEPTH = 8;

function listOf(value: unknown): string[] {
  if (value === undefined || value === null) return [];
  if (Array.isArray(value)) return value.map((s) => String(s).trim()).filter(Boolean);
  // Rules such as `Bash(git add:*)` hold spaces: split on commas only.
  return String(value)
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
}

/** One command file's text; throws with a readable reason. */
export function parseCommandMarkdown(
  text: string,
  name: string,
  source: CommandSource,
  file: string,
  parseYaml: (t: string) => unknown,
): MarkdownCommand {
  const { meta, body } = splitFrontMatter(text, parseYaml);
  const str = (k: string) =>
    typeof meta[k] === 'string' && (meta[k] as string).trim() ? (meta[k] as string).trim() : undefined;
  // Without a description, the body's first line stands for it (as the reference does).
  const firstLine =
    body
      .split('\n')
      .find((l) => l.trim())
      ?.trim() ?? '';
  const model = str('model');
  return {
    name,
    description: str('description') ?? (firstLine.length > 100 ? `${firstLine.slice(0, 99)}…` : firstLine),
    argumentHint: str('argument-hint') ?? '',
    allowedTools: listOf(meta['allowed-tools']),
    ...(model ? { model } : {}),
    body,
    source,
    file,
  };
}

function mdFiles(dir: string, depth = 0): string[] {
  let entries: string[];
  try {
    entries = readdirSync(dir).sort();
  } catch {
    return [];
  }
  const out: string[] = [];
  for (const e of entries) {
    const p = join(dir, e);
    let st;
    try {
      st = statSync(p);
    } catch {
      continue;
    }
    if (st.isDirectory() && depth < MAX_DEPTH) out.push(...mdFiles(p, depth + 1));
    else if (st.isFile() && e.endsWith('.md')) out.push(p);
  }
  return out;
}

/** Every command under `dir` (missing dir → none); bad files are skipped and reported. */
export async function loadCommandDir(
  dir: string,
  source: CommandSource,
): Promise<{ commands: MarkdownCommand[]; problems: CommandFileProblem[] }> {
  const files = mdFiles(dir);
  const commands: MarkdownCommand[] = [];
  const problems: CommandFileProblem[] = [];
  if (files.length === 0) return { commands, problems };
  const { parse } = await import('yaml');
  for (const file of files) {
    const name = relative(dir, file).slice(0, -3).split(sep).join(':');
    if (!/^[\w.:-]+$/.test(name)) {
      problems.push({ file, problem: `"${name}" is not a usable command name (letters, digits, _ . - only)` });
      continue;
    }
    try {
      commands.push(parseCommandMarkdown(readFileSync(file, 'utf8'), name, source, file, parse));
    } catch (err) {
      problems.push({ file, problem: (err as Error).message });
    }
  }
  return { commands, problems };
}
