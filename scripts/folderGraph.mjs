// The import scan of src/ and tools/ that test/unit/layering.test.ts checks the layers with, and the
// folder-level import graph it gives, drawn over LAYERS as the Mermaid flowchart of
// docs/architecture.md's "The layers" (test/unit/layering.test.ts fails when the doc's diagram
// differs from this output):
//   node scripts/folderGraph.mjs            the layers' diagram
//   node scripts/folderGraph.mjs --folders  the folder graph itself, one line per folder
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

/**
 * The layers docs/architecture.md draws: [node id, its folders]. Every folder of the folder graph is
 * in exactly one (a new folder fails test/unit/layering.test.ts until it is placed here), and the
 * layers' graph has no cycle, so the picture reads top to bottom.
 */
export const LAYERS = [
  ['entry', ['src', 'src/cli', 'src/app', 'src/modes']],
  ['tui', ['src/tui']],
  ['plugins', ['src/plugins']],
  ['session', ['src/session']],
  ['control', ['src/control']],
  ['protocol', ['src/protocol']],
  ['agents', ['src/agents', 'src/teams', 'src/tasks', 'src/workflows', 'src/peers']],
  ['ext', ['src/mcp', 'src/commands', 'src/skills']],
  ['telemetry', ['src/telemetry']],
  ['loop', ['src/loop']],
  ['resources', ['src/settings', 'src/sandbox', 'src/prompt', 'src/worktrees']],
  ['guards', ['src/hooks', 'src/permissions']],
  ['tools', ['tools']],
  ['base', ['src/util', 'src/net', 'src/transcript']],
];

/** The layers' graph: an edge a → b when a folder of layer a imports a folder of layer b. */
export function layerGraph(folders, layers = LAYERS) {
  const layerOf = new Map(layers.flatMap(([id, fs]) => fs.map((f) => [f, id])));
  const missing = [...folders.keys()].filter((f) => !layerOf.has(f));
  if (missing.length) throw new Error(`folderGraph.mjs: folders in no layer of LAYERS: ${missing.join(', ')}`);
  const graph = new Map(layers.map(([id]) => [id, new Set()]));
  for (const [from, targets] of folders)
    for (const to of targets)
      if (layerOf.get(to) !== layerOf.get(from)) graph.get(layerOf.get(from)).add(layerOf.get(to));
  return graph;
}

/** A folder as a label: `src/session` → `session/`, `src` → `src/*.ts`, `tools` → `tools/`. */
const folderLabel = (folder) => (folder === 'src' ? 'src/*.ts' : `${folder.replace(/^src\//, '')}/`);

/** Whether `to` is reached from `from` through a path of more than one arrow of the graph. */
function reachedOtherwise(graph, from, to) {
  const seen = new Set();
  const stack = [...graph.get(from)].filter((v) => v !== to);
  while (stack.length) {
    const v = stack.pop();
    if (v === to) return true;
    if (seen.has(v)) continue;
    seen.add(v);
    stack.push(...graph.get(v));
  }
  return false;
}

/**
 * The layers' graph as a Mermaid flowchart, in LAYERS' order, so the same code prints the same text.
 * Every import between two layers is an arrow: solid when no longer path joins them (the graph's
 * transitive reduction: the backbone that reads top to bottom), dotted when one does.
 */
export function mermaid(graph, layers = LAYERS) {
  const lines = ['flowchart TD'];
  for (const [id, folders] of layers) {
    const label = folders.map(folderLabel).join(', ');
    lines.push(`  ${id}["${folders.length > 1 ? `${id}<br/>${label}` : label}"]`);
  }
  const order = layers.map(([id]) => id);
  const arrows = order.flatMap((id) =>
    [...graph.get(id)]
      .sort((a, b) => order.indexOf(a) - order.indexOf(b))
      .map((to) => [id, to, reachedOtherwise(graph, id, to)]),
  );
  for (const [id, to, otherwise] of arrows) if (!otherwise) lines.push(`  ${id} --> ${to}`);
  for (const [id, to, otherwise] of arrows) if (otherwise) lines.push(`  ${id} -.-> ${to}`);
  return `${lines.join('\n')}\n`;
}

/** The folder graph itself, one line per folder: `src/session -> src/commands, src/control, …`. */
function folderLines(graph) {
  return [...graph.keys()]
    .sort()
    .map((f) => `${f} -> ${[...graph.get(f)].sort().join(', ')}\n`)
    .join('');
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const folders = folderGraph();
  process.stdout.write(process.argv[2] === '--folders' ? folderLines(folders) : mermaid(layerGraph(folders)));
}
