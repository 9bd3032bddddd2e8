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
  ['src/loop', ['src/protocol', 'src/session', 'src/control', 'src/agents', 'src/cli', 'src/main.ts']],
  // The session takes a session config, not CLI options; agents plug in through typed tool services.
  ['src/session', ['src/cli', 'src/agents']],
  // Subagents, teammates and background tasks are what a session uses, not the other way round:
  // they tell the session typed events (loop, task, team) and share transcripts and the system
  // prompt's parts from src/transcript and src/prompt.
  ['src/agents', ['src/session', 'src/control', 'src/protocol', 'src/cli', 'src/main.ts', 'src/app', 'src/modes']],
  ['src/teams', ['src/session', 'src/control', 'src/protocol', 'src/cli', 'src/main.ts', 'src/app', 'src/modes']],
  ['src/tasks', ['src/session', 'src/control', 'src/protocol', 'src/cli', 'src/main.ts', 'src/app', 'src/modes']],
  // Only the entry (main.ts, src/modes, src/app) knows CLI options and picks modes.
  ['src/control', ['src/cli', 'src/main.ts', 'src/app', 'src/modes']],
  ['src/session', ['src/main.ts', 'src/app', 'src/modes']],
  // Tools know nothing of sessions, control requests or the wire.
  ['tools', ['src/session', 'src/control', 'src/protocol', 'src/cli', 'src/main.ts']],
];

function sourceFiles(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sourceFiles(join(dir, e.name)) : /\.tsx?$/.test(e.name) ? [join(dir, e.name)] : [],
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

/** A file's folder as a node of the folder graph: `tools`, `src` (its top-level files) or `src/<dir>`. */
function folderOf(path: string): string | undefined {
  const parts = path.split('/');
  if (parts[0] === 'tools') return 'tools';
  if (parts[0] === 'src') return parts.length > 2 ? `src/${parts[1]}` : 'src';
  return undefined;
}

/** The folder graph: an edge a → b when a file of folder a imports a file of folder b. */
function folderGraph(): Map<string, Set<string>> {
  const graph = new Map<string, Set<string>>();
  for (const file of [...sourceFiles('src'), ...sourceFiles('tools')]) {
    const from = folderOf(file)!;
    if (!graph.has(from)) graph.set(from, new Set());
    for (const target of importsOf(file, readFileSync(join(ROOT, file), 'utf8'))) {
      const to = folderOf(target);
      if (to && to !== from) graph.get(from)!.add(to);
    }
  }
  return graph;
}

/** The strongly connected components of more than one folder: each is a cycle of folders (Tarjan). */
function folderCycles(graph: Map<string, Set<string>>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const out: string[][] = [];
  const visit = (v: string) => {
    index.set(v, index.size);
    low.set(v, index.get(v)!);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const component: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      if (component.length > 1) out.push(component.sort());
    }
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return out;
}

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

  it('the folder graph has no cycle, following imports transitively', () => {
    expect(folderCycles(folderGraph())).toEqual([]);
  });

  it('tools/ imports nothing from src/ but src/util: the tool contract is its own (tools/tool.ts and its parts)', () => {
    const found: string[] = [];
    for (const file of sourceFiles('tools'))
      for (const target of importsOf(file, readFileSync(join(ROOT, file), 'utf8')))
        if (under(target, 'src') && !under(target, 'src/util')) found.push(`${file} -> ${target}`);
    expect(found).toEqual([]);
  });

  it('the cycle check sees a cycle made through several folders', () => {
    const graph = new Map([
      ['src/session', new Set(['src/teams'])],
      ['src/teams', new Set(['src/agents'])],
      ['src/agents', new Set(['src/session'])],
      ['src/util', new Set<string>()],
    ]);
    expect(folderCycles(graph)).toEqual([['src/agents', 'src/session', 'src/teams']]);
  });
});
