// The environment block: where the agent runs, read once per session (so every request of the
// session sends the same bytes), plus the model line, which follows a model switch. It is the
// first part of the system prompt's per-session half, after the cache boundary.
import { readFileSync, statSync } from 'node:fs';
import { platform, release, type } from 'node:os';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { CURRENT_FAMILY, modelDisplayName } from './modelFamily.js';

export interface GitFacts {
  /** The repository's top folder (the main checkout's, for a linked worktree). */
  root: string;
  /** The folder holding the cwd's own checkout. */
  checkout: string;
  /** The checked-out branch, or `detached at <sha>`; undefined when HEAD cannot be read. */
  branch?: string;
}

export interface EnvironmentFacts {
  cwd: string;
  git?: GitFacts;
  platform: string;
  shell: string;
  osVersion: string;
  date: string;
}

function isDir(p: string): boolean {
  try {
    return statSync(p).isDirectory();
  } catch {
    return false;
  }
}

function readText(p: string): string | undefined {
  try {
    return readFileSync(p, 'utf8');
  } catch {
    return undefined;
  }
}

/**
 * The git checkout around `cwd`, found by reading `.git` files (no git process: this runs at every
 * start). A linked worktree's `.git` is a file naming its git dir, whose `commondir` leads to the
 * main repository: that repository's root is the project root, as the reference has it.
 */
export function gitFacts(cwd: string): GitFacts | undefined {
  for (let dir = resolve(cwd); ; dir = dirname(dir)) {
    const dotGit = join(dir, '.git');
    let gitDir: string | undefined;
    let root = dir;
    if (isDir(dotGit)) gitDir = dotGit;
    else {
      const pointer = /^gitdir:\s*(.+)\s*$/m.exec(readText(dotGit) ?? '')?.[1];
      if (pointer) {
        gitDir = isAbsolute(pointer) ? pointer : resolve(dir, pointer);
        const common = readText(join(gitDir, 'commondir'))?.trim();
        if (common) root = dirname(isAbsolute(common) ? common : resolve(gitDir, common));
      }
    }
    if (gitDir) {
      const head = readText(join(gitDir, 'HEAD'))?.trim();
      const ref = head && /^ref:\s*refs\/heads\/(.+)$/.exec(head)?.[1];
      const branch = ref ?? (head && /^[0-9a-f]{7,}$/.test(head) ? `detached at ${head.slice(0, 7)}` : undefined);
      return { root, checkout: dir, ...(branch ? { branch } : {}) };
    }
    if (dirname(dir) === dir) return undefined;
  }
}

export function environmentFacts(cwd: string, now = new Date()): EnvironmentFacts {
  const git = gitFacts(cwd);
  return {
    cwd,
    ...(git ? { git } : {}),
    platform: platform(),
    // The Bash tool runs `bash -c`, whatever the user's login shell is.
    shell: 'bash',
    osVersion: `${type()} ${release()}`,
    date: now.toISOString().slice(0, 10),
  };
}

/** The block's lines; `model` is left out for a caller that does not know it (a subagent's block). */
export function environmentText(f: EnvironmentFacts, model?: string): string {
  const repo = f.git
    ? `yes${f.git.branch ? `, on branch ${f.git.branch}` : ''} (repository root: ${f.git.root})`
    : 'no';
  const lines = [
    '# Environment',
    `- Working directory: ${f.cwd}`,
    `- Git repository: ${repo}`,
    `- Platform: ${f.platform}`,
    `- Shell: ${f.shell}`,
    `- OS version: ${f.osVersion}`,
    // volatile.ts finds the date, OS and git lines by their wording: keep the two in step.
    `- Today's date: ${f.date}`,
  ];
  if (model !== undefined) {
    lines.push(
      `- Model: you are ${modelDisplayName(model)}, model id \`${model}\`.`,
      `- The current Claude models are ${CURRENT_FAMILY.map((m) => `${m.name} (\`${m.id}\`)`).join(', ')}. Code you write against the Claude API should use one of these unless the user names another.`,
    );
  }
  return lines.join('\n');
}
