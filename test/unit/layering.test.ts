// The import rule in docs/architecture.md, checked by scanning every source file's imports
// (static, re-exports and dynamic import()), so it stays true.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

/** [importing folder, folders it must not import]. Folders are paths from the project root. */
const RULES: Array<[string, string[]]> = [
  // The loop knows no wire, no session, no CLI: usage and result types are its own.
  ['src/loop', ['src/protocol', 'src/session', 'src/control', 'src/agents', 'src/options.ts', 'src/main.ts']],
  // The session takes a session config, not CLI options; agents plug in through typed tool services.
  ['src/session', ['src/options.ts', 'src/agents']],
  // Subagents, teammates and background tasks are what a session uses, not the other way round:
  // they tell the session typed events (loop, task, team) and share transcripts and the system
  // prompt's parts from src/transcript and src/prompt.
  [
    'src/agents',
    ['src/session', 'src/control', 'src/protocol', 'src/options.ts', 'src/main.ts', 'src/app', 'src/modes'],
  ],
  [
    'src/teams',
    ['src/session', 'src/control', 'src/protocol', 'src/options.ts', 'src/main.ts', 'src/app', 'src/modes'],
  ],
  [
    'src/tasks',
    ['src/session', 'src/control', 'src/protocol', 'src/options.ts', 'src/main.ts', 'src/app', 'src/modes'],
  ],
  // Only the entry (main.ts, src/modes, src/app) knows CLI options and picks modes.
  ['src/control', ['src/options.ts', 'src/main.ts', 'src/app', 'src/modes']],
  ['src/session', ['src/main.ts', 'src/app', 'src/modes']],
  // Tools know nothing of sessions, control requests or the wire.
  ['tools', ['src/session', 'src/control', 'src/protocol', 'src/options.ts', 'src/main.ts']],
];

function sourceFiles(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sourceFiles(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
  );
}

const IMPORT =
  /(?:^|\n)\s*(?:import|export)\b[^'";]*?from\s*['"]([^'"]+)['"]|\bimport\(\s*['"]([^'"]+)['"]\s*\)|(?:^|\n)\s*import\s*['"]([^'"]+)['"]/g;

/** The project-relative paths a file imports (relative specifiers only; packages are not ours). */
function importsOf(file: string, text: string): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(IMPORT)) {
    const spec = m[1] ?? m[2] ?? m[3];
    if (!spec.startsWith('.')) continue;
    out.push(relative(ROOT, resolve(ROOT, dirname(file), spec)).replace(/\.js$/, '.ts'));
  }
  return out;
}

const under = (path: string, folder: string) => path === folder || path.startsWith(`${folder}/`);

describe('layering', () => {
  it('the import scan sees static imports, re-exports and dynamic imports', () => {
    const text =
      "import type { A } from '../protocol/x.js';\nexport { B } from './b.js';\nconst m = await import('../session/y.js');\nimport './side.js';";
    expect(importsOf('src/loop/f.ts', text)).toEqual([
      'src/protocol/x.ts',
      'src/loop/b.ts',
      'src/session/y.ts',
      'src/loop/side.ts',
    ]);
  });

  it('no module imports across a forbidden boundary', () => {
    const broken: string[] = [];
    for (const [folder, forbidden] of RULES)
      for (const file of sourceFiles(folder))
        for (const target of importsOf(file, readFileSync(join(ROOT, file), 'utf8')))
          for (const f of forbidden) if (under(target, f)) broken.push(`${file} imports ${target}`);
    expect(broken).toEqual([]);
  });
});
