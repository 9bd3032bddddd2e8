// A workflow script, read before it runs: `export const meta = {...}` first (a pure literal: name,
// description, optional phases), then the body. The body is plain JavaScript that runs in an
// async function, so it may `await` and `return` at its top level. acorn parses it (loaded from
// node_modules on the first script: sessions that never run a workflow never load it).
import type { Node, Program } from 'acorn';
import { loadExternal } from '../util/loadExternal.js';

export interface WorkflowPhase {
  title: string;
  detail?: string;
  model?: string;
}

export interface WorkflowMeta {
  name: string;
  description: string;
  title?: string;
  whenToUse?: string;
  phases?: WorkflowPhase[];
}

export interface ParsedScript {
  meta: WorkflowMeta;
  /** The script after the meta statement: what runs. */
  body: string;
  /** The script line the body starts on. */
  bodyLine: number;
}

/** Scripts larger than this are refused before they are parsed. */
export const MAX_SCRIPT_BYTES = 512 * 1024;

const PLAIN_JS_HINT =
  'Workflow scripts are plain JavaScript: TypeScript syntax (type annotations, interfaces, generics) does not parse, and neither does broken quoting.';

type AcornModule = typeof import('acorn');
let acornModule: AcornModule | undefined;
function acorn(): AcornModule {
  acornModule ??= loadExternal<AcornModule>('acorn');
  return acornModule;
}

/** Parse a script: its meta and body, or an error that says what is wrong and where. */
export async function parseWorkflowScript(source: string): Promise<ParsedScript | { error: string }> {
  if (Buffer.byteLength(source) > MAX_SCRIPT_BYTES)
    return { error: `the script is larger than ${MAX_SCRIPT_BYTES} bytes` };
  const { parse } = acorn();
  let program: Program;
  try {
    program = parse(source, {
      ecmaVersion: 'latest',
      sourceType: 'module',
      allowAwaitOutsideFunction: true,
      allowReturnOutsideFunction: true,
      locations: true,
    });
  } catch (err) {
    return { error: `${parseErrorText(err, source)}\n${PLAIN_JS_HINT}` };
  }
  const first = program.body[0] as AnyNode | undefined;
  const init = first && metaInit(first);
  if (!first || !init)
    return {
      error:
        'the script must begin with `export const meta = { name, description, phases }` (a plain object literal), before any other statement',
    };
  let raw: unknown;
  try {
    raw = literalValue(init);
  } catch (err) {
    return {
      error: `meta must be a pure literal (no variables, calls, spreads or interpolation): ${(err as Error).message}`,
    };
  }
  const meta = checkMeta(raw as Record<string, unknown>);
  if ('error' in meta) return meta;
  const body = source
    .slice(first.end)
    .replace(/^[;\s]*\n/, '')
    .trimStart();
  const nested = findImports(program);
  if (nested) return { error: nested };
  const bodyLine = source.slice(0, source.length - body.length).split('\n').length;
  return { meta, body, bodyLine };
}

/**
 * Calls that would make a run differ from the next one: Date.now(), Math.random(), `new Date()`.
 * They are refused in a script given inline (and throw at run time in any script).
 */
export async function nondeterministicCall(body: string): Promise<string | undefined> {
  const { parse } = acorn();
  let program: Program;
  try {
    program = parse(body, {
      ecmaVersion: 'latest',
      sourceType: 'module',
      allowAwaitOutsideFunction: true,
      allowReturnOutsideFunction: true,
    });
  } catch {
    return undefined;
  }
  let found: string | undefined;
  walk(program as unknown as AnyNode, (n) => {
    if (found) return;
    if (n.type === 'MemberExpression' && !n.computed && n.object?.type === 'Identifier') {
      const pair = `${n.object.name}.${n.property?.name}`;
      if (pair === 'Date.now' || pair === 'Math.random') found = `${pair}()`;
    } else if (n.type === 'NewExpression' && n.callee?.type === 'Identifier' && n.callee.name === 'Date') {
      if (!n.arguments?.length) found = 'new Date()';
    }
  });
  return found;
}

// ---- helpers ----

/** An ESTree node as this file reads it (acorn's types do not narrow by `type`). */
interface AnyNode extends Node {
  [key: string]: any;
}

function parseErrorText(err: unknown, source: string): string {
  const e = err as { message?: string; loc?: { line: number; column: number } };
  const message = `Syntax error: ${e.message ?? String(err)}`;
  if (!e.loc) return message;
  const line = source.split('\n')[e.loc.line - 1] ?? '';
  const from = Math.max(0, Math.min(e.loc.column - 40, line.length - 80));
  return `${message}\n\n${line.slice(from, from + 80)}\n${' '.repeat(e.loc.column - from)}^\n`;
}

function metaInit(stmt: AnyNode): AnyNode | undefined {
  if (stmt.type !== 'ExportNamedDeclaration') return undefined;
  const decl = stmt.declaration as AnyNode | null;
  if (decl?.type !== 'VariableDeclaration' || decl.kind !== 'const' || decl.declarations.length !== 1) return undefined;
  const d = decl.declarations[0] as AnyNode;
  if (d.id?.type !== 'Identifier' || d.id.name !== 'meta' || d.init?.type !== 'ObjectExpression') return undefined;
  return d.init;
}

const RESERVED_KEYS = new Set(['__proto__', 'constructor', 'prototype']);

function literalValue(n: AnyNode): unknown {
  switch (n.type) {
    case 'Literal':
      if (n.regex) throw new Error('a regular expression is not a literal value here');
      return n.value;
    case 'TemplateLiteral':
      if (n.expressions.length) throw new Error('template interpolation');
      return n.quasis.map((q: AnyNode) => q.value.cooked ?? '').join('');
    case 'ArrayExpression':
      return n.elements.map((el: AnyNode | null) => {
        if (!el) throw new Error('a hole in an array');
        if (el.type === 'SpreadElement') throw new Error('a spread');
        return literalValue(el);
      });
    case 'ObjectExpression': {
      const out: Record<string, unknown> = Object.create(null);
      for (const p of n.properties as AnyNode[]) {
        if (p.type !== 'Property') throw new Error('a spread');
        if (p.computed) throw new Error('a computed key');
        if (p.method || p.kind !== 'init') throw new Error('a method or accessor');
        const key = p.key.type === 'Identifier' ? p.key.name : String(p.key.value);
        if (RESERVED_KEYS.has(key)) throw new Error(`the key ${key}`);
        out[key] = literalValue(p.value);
      }
      return out;
    }
    case 'UnaryExpression':
      if (n.operator === '-' && n.argument.type === 'Literal' && typeof n.argument.value === 'number')
        return -n.argument.value;
      throw new Error(`the operator ${n.operator}`);
    default:
      throw new Error(`a ${n.type}`);
  }
}

function checkMeta(m: Record<string, unknown>): WorkflowMeta | { error: string } {
  if (typeof m.name !== 'string' || !m.name.trim()) return { error: 'meta.name must be a non-empty string' };
  if (typeof m.description !== 'string' || !m.description.trim())
    return { error: 'meta.description must be a non-empty string' };
  const phases: WorkflowPhase[] = [];
  if (m.phases !== undefined) {
    if (!Array.isArray(m.phases)) return { error: 'meta.phases must be an array of { title, detail? }' };
    for (const p of m.phases) {
      if (!p || typeof p !== 'object' || typeof (p as WorkflowPhase).title !== 'string')
        return { error: 'each entry of meta.phases must be an object with a string title' };
      const { title, detail, model } = p as Record<string, unknown>;
      phases.push({
        title: title as string,
        ...(typeof detail === 'string' ? { detail } : {}),
        ...(typeof model === 'string' ? { model } : {}),
      });
    }
  }
  return {
    name: m.name,
    description: m.description,
    ...(typeof m.title === 'string' && m.title ? { title: m.title } : {}),
    ...(typeof m.whenToUse === 'string' ? { whenToUse: m.whenToUse } : {}),
    ...(phases.length ? { phases } : {}),
  };
}

/** `import`/`export` after the meta, or `import()`: a script reaches nothing but its hooks. */
function findImports(program: Program): string | undefined {
  let problem: string | undefined;
  program.body.forEach((stmt, i) => {
    if (i === 0 || problem) return;
    if (stmt.type === 'ImportDeclaration') problem = 'import statements are not available in workflow scripts';
    else if (stmt.type.startsWith('Export')) problem = 'only the meta statement may be exported';
  });
  if (problem) return problem;
  walk(program as unknown as AnyNode, (n) => {
    if (!problem && n.type === 'ImportExpression') problem = 'import() is not available in workflow scripts';
  });
  return problem;
}

function walk(node: AnyNode, visit: (n: AnyNode) => void): void {
  visit(node);
  for (const key of Object.keys(node)) {
    if (key === 'loc' || key === 'start' || key === 'end') continue;
    const v = node[key];
    if (Array.isArray(v)) {
      for (const c of v) if (c && typeof c.type === 'string') walk(c, visit);
    } else if (v && typeof v === 'object' && typeof v.type === 'string') walk(v, visit);
  }
}
