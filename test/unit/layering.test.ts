// The import rule in docs/architecture.md, checked by scanning every source file's imports
// (static, `import type`, re-exports and dynamic import(); the scan is scripts/folderGraph.mjs), so
// it stays true. The rules hold transitively: a folder reaches no forbidden folder through any
// chain of files, whichever folders the chain passes through.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  fileGraph,
  folderGraph,
  forbiddenChains,
  importsOf,
  layerGraph,
  mermaid,
  ROOT,
  sourceFiles,
  under,
} from '../../scripts/folderGraph.mjs';

/** [importing folder, folders it must not reach]. Folders are paths from the project root. */
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

  it('no module reaches across a forbidden boundary, through any chain of imports', () => {
    const files = fileGraph();
    const broken = RULES.flatMap(([folder, forbidden]) =>
      forbiddenChains(files, folder, forbidden).map((chain) => `${folder} reaches ${chain.join(' -> ')}`),
    );
    expect(broken).toEqual([]);
  });

  it('the rule check follows a chain through folders no rule names, and type-only imports', () => {
    // A planted violation: session → teams (allowed) → agents (forbidden to the session), the
    // chain the audit found, with type-only imports all the way.
    const files = new Map([
      ['src/session/events.ts', ['src/session/turnTiming.ts', 'src/teams/team.ts']],
      ['src/session/turnTiming.ts', []],
      ['src/teams/team.ts', ['src/agents/subagentRunner.ts']],
      ['src/agents/subagentRunner.ts', ['src/loop/events.ts']],
      ['src/loop/events.ts', []],
    ]);
    expect(forbiddenChains(files, 'src/session', ['src/agents'])).toEqual([
      ['src/session/events.ts', 'src/teams/team.ts', 'src/agents/subagentRunner.ts'],
    ]);
    expect(forbiddenChains(files, 'src/session', ['src/cli'])).toEqual([]);
    const text = "import type { TeamEvent } from '../teams/team.js';\nimport { type X } from './x.js';";
    expect(importsOf('src/session/events.ts', text)).toEqual(['src/teams/team.ts', 'src/session/x.ts']);
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

  it("docs/architecture.md's layers diagram is the one scripts/folderGraph.mjs prints from the code", () => {
    const layers = layerGraph(folderGraph());
    expect(folderCycles(layers)).toEqual([]);
    expect(layersDiagram(readFileSync(join(ROOT, 'docs/architecture.md'), 'utf8'))).toBe(mermaid(layers));
  });

  it('the diagram check sees an arrow the doc lacks, and a folder in no layer', () => {
    const doc = readFileSync(join(ROOT, 'docs/architecture.md'), 'utf8');
    // A planted import: the loop importing the session (its layer gains an arrow).
    const planted = folderGraph();
    planted.get('src/loop')!.add('src/session');
    expect(layersDiagram(doc)).not.toBe(mermaid(layerGraph(planted)));
    planted.set('src/newFolder', new Set(['src/util']));
    expect(() => layerGraph(planted)).toThrow('folders in no layer of LAYERS: src/newFolder');
  });
});

/** The first Mermaid block under the doc's "## The layers" heading, as the script prints it. */
function layersDiagram(doc: string): string | undefined {
  const section = doc.slice(doc.indexOf('\n## The layers\n'));
  return /```mermaid\n([\s\S]*?)```/.exec(section)?.[1];
}
