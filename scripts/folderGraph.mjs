// The import scan of src/ and tools/ that test/unit/layering.test.ts checks the layers with, and the
// folder-level import graph it gives, printed as the Mermaid flowchart of docs/architecture.md's
// "The layers" (test/unit/layering.test.ts fails when the doc's diagram differs from this output):
//   node scripts/folderGraph.mjs
// Every relative import counts: static, `import type`, re-exports and dynamic import().
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/** The .ts and .tsx files under a folder (a path from the project root), as project-relative paths. */
export function sourceFiles(dir) {
  return readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sourceFiles(join(dir, e.name)) : /\.tsx?$/.test(e.name) ? [join(dir, e.name)] : [],
  );
}

const IMPORT =
  /(?:^|\n)\s*(?:import|export)\b[^'";]*?from\s*['"]([^'"]+)['"]|\bimport\(\s*['"]([^'"]+)['"]\s*\)|(?:^|\n)\s*import\s*['"]([^'"]+)['"]/g;

/** The project-relative paths a file imports (relative specifiers only; packages are not ours). */
export function importsOf(file, text) {
  const out = [];
  for (const m of text.matchAll(IMPORT)) {
    const spec = m[1] ?? m[2] ?? m[3];
    if (!spec.startsWith('.')) continue;
    out.push(relative(ROOT, resolve(ROOT, dirname(file), spec)).replace(/\.js$/, '.ts'));
  }
  return out;
}

/** The source file an imported path names: `x.ts`, or `x.tsx` when that is the one there. */
function sourceOf(path) {
  const tsx = path.replace(/\.ts$/, '.tsx');
  return !existsSync(join(ROOT, path)) && existsSync(join(ROOT, tsx)) ? tsx : path;
}

/** The file graph of src/ and tools/: each file → the source files it imports. */
export function fileGraph() {
  const graph = new Map();
  for (const file of [...sourceFiles('src'), ...sourceFiles('tools')])
    graph.set(file, [...new Set(importsOf(file, readFileSync(join(ROOT, file), 'utf8')).map(sourceOf))]);
  return graph;
}

export const under = (path, folder) => path === folder || path.startsWith(`${folder}/`);

/** A file's folder as a node of the folder graph: `tools`, `src` (its top-level files) or `src/<dir>`. */
export function folderOf(path) {
  const parts = path.split('/');
  if (parts[0] === 'tools') return 'tools';
  if (parts[0] === 'src') return parts.length > 2 ? `src/${parts[1]}` : 'src';
  return undefined;
}

/** The folder graph: an edge a → b when a file of folder a imports a file of folder b. */
export function folderGraph(files = fileGraph()) {
  const graph = new Map();
  for (const [file, targets] of files) {
    const from = folderOf(file);
    if (!graph.has(from)) graph.set(from, new Set());
    for (const target of targets) {
      const to = folderOf(target);
      if (to && to !== from) graph.get(from).add(to);
    }
  }
  return graph;
}

/**
 * Each file under one of `forbidden` that the files of `folder` reach through the file graph, with
 * a shortest chain to it (breadth first from all of the folder's files at once): [a file of
 * `folder`, …, the forbidden file]. A chain stops at the first forbidden file it enters.
 */
export function forbiddenChains(files, folder, forbidden) {
  const out = [];
  const queue = [...files.keys()].filter((f) => under(f, folder));
  const from = new Map(queue.map((f) => [f, undefined]));
  for (let i = 0; i < queue.length; i++) {
    const file = queue[i];
    if (forbidden.some((f) => under(file, f))) {
      const chain = [];
      for (let f = file; f !== undefined; f = from.get(f)) chain.unshift(f);
      out.push(chain);
      continue; // the first forbidden file on a path is the violation; do not walk through it
    }
    for (const next of files.get(file) ?? [])
      if (!from.has(next)) {
        from.set(next, file);
        queue.push(next);
      }
  }
  return out;
}

/** A Mermaid node id for a folder: `src/session` → `session`, `src` → `src`, `tools` → `tools`. */
const nodeId = (folder) => folder.replace(/^src\//, '');

/** The folder graph as a Mermaid flowchart, nodes and edges sorted, so the same code prints the same text. */
export function mermaid(graph) {
  const folders = [...graph.keys()].sort();
  const lines = ['flowchart LR'];
  for (const f of folders) lines.push(`  ${nodeId(f)}["${f === 'src' ? 'src/*.ts' : `${f}/`}"]`);
  for (const f of folders) for (const t of [...graph.get(f)].sort()) lines.push(`  ${nodeId(f)} --> ${nodeId(t)}`);
  return `${lines.join('\n')}\n`;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url))
  process.stdout.write(mermaid(folderGraph()));
