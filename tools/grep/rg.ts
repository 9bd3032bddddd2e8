// Grep's ripgrep impl: finds rg on PATH, runs it with our flags and parses its --null/--json output into hits.
import { spawn } from 'node:child_process';
import { accessSync, constants as fsConstants, statSync } from 'node:fs';
import { basename, delimiter, dirname, join, resolve } from 'node:path';
import { CappedText } from '../../src/util/processGroup.js';
import { ToolError } from '../tool.js';
import { capLine, MAX_FILES, RG_TIMEOUT_MS, type ContentResult, type FileHits, type SearchSpec } from './shared.js';

let rgPathCache: string | null | undefined;

/** The rg executable on PATH, or null. */
export function findRg(): string | null {
  if (rgPathCache !== undefined) return rgPathCache;
  rgPathCache = null;
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    if (!dir) continue;
    const candidate = join(dir, 'rg');
    try {
      accessSync(candidate, fsConstants.X_OK);
      if (statSync(candidate).isFile()) {
        rgPathCache = candidate;
        break;
      }
    } catch {
      /* not here */
    }
  }
  return rgPathCache;
}

function rgArgs(spec: SearchSpec, mode: 'files' | 'json'): string[] {
  const args = ['--no-config', '--no-ignore-global', '--no-ignore-exclude', '--no-messages'];
  if (spec.ignoreCase) args.push('-i');
  if (spec.multiline) args.push('-U', '--multiline-dotall');
  for (const g of spec.globs) args.push('--glob', g);
  if (spec.type) args.push('--type', spec.type);
  if (mode === 'files') args.push('--files-with-matches', '--null');
  else {
    args.push('--json', '--sort', 'path');
    if (spec.before > 0) args.push('-B', String(spec.before));
    if (spec.after > 0) args.push('-A', String(spec.after));
  }
  args.push('-e', spec.pattern, '--', spec.file ? basename(spec.file) : '.');
  return args;
}

/**
 * Run rg, handing each complete output record (split on `separator`) to `onRecord`; `onRecord`
 * returning false stops rg early. Killed on abort and after RG_TIMEOUT_MS.
 */
function runRg(
  spec: SearchSpec,
  args: string[],
  separator: string,
  onRecord: (record: string) => boolean,
): Promise<{ timedOut: boolean }> {
  const rg = findRg();
  if (!rg) throw new ToolError('ripgrep (rg) is not installed');
  return new Promise((resolvePromise, reject) => {
    const child = spawn(rg, args, {
      cwd: spec.file ? dirname(spec.file) : spec.root,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const stderr = new CappedText(4000);
    let pending = '';
    let stopped = false;
    let timedOut = false;
    const stop = () => {
      stopped = true;
      child.kill('SIGKILL');
    };
    const timer = setTimeout(() => {
      timedOut = true;
      stop();
    }, RG_TIMEOUT_MS);
    const onAbort = () => stop();
    spec.signal.addEventListener('abort', onAbort, { once: true });
    if (spec.signal.aborted) stop();

    child.stdout.setEncoding('utf8');
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (c: string) => stderr.push(c));
    child.stdout.on('data', (chunk: string) => {
      if (stopped) return;
      pending += chunk;
      let i: number;
      while ((i = pending.indexOf(separator)) !== -1) {
        const record = pending.slice(0, i);
        pending = pending.slice(i + separator.length);
        if (!onRecord(record)) {
          stop();
          return;
        }
      }
    });
    child.on('error', (err) => {
      clearTimeout(timer);
      spec.signal.removeEventListener('abort', onAbort);
      reject(err);
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      spec.signal.removeEventListener('abort', onAbort);
      if (spec.signal.aborted) return reject(new ToolError('Grep was interrupted.'));
      if (!stopped && pending && !onRecord(pending)) stopped = true;
      // 1 = no match; 2 = an error, fatal only if rg found nothing (a bad regex, a bad type).
      if (code === 2 && !stopped) {
        const msg = stderr.toString().trim();
        if (msg) return reject(new ToolError(`ripgrep: ${msg}`));
      }
      resolvePromise({ timedOut });
    });
  });
}

export async function rgFiles(spec: SearchSpec): Promise<string[]> {
  const out: string[] = [];
  const base = spec.file ? dirname(spec.file) : spec.root;
  await runRg(spec, rgArgs(spec, 'files'), '\0', (rec) => {
    if (rec) out.push(resolve(base, rec));
    return out.length < MAX_FILES;
  });
  return out;
}

interface RgJsonText {
  text?: string;
  bytes?: string;
}
interface RgJsonMessage {
  type: string;
  data: { path?: RgJsonText; lines?: RgJsonText; line_number?: number | null };
}

function rgText(t: RgJsonText | undefined): string {
  if (!t) return '';
  return t.text ?? Buffer.from(t.bytes ?? '', 'base64').toString('utf8');
}

/** Content/count via rg --json: stops once `wantLines` hit lines are in (0 = all). */
export async function rgContent(spec: SearchSpec, wantLines: number, keepLines: boolean): Promise<ContentResult> {
  const files: FileHits[] = [];
  const base = spec.file ? dirname(spec.file) : spec.root;
  let current: FileHits | undefined;
  let total = 0;
  const { timedOut } = await runRg(spec, rgArgs(spec, 'json'), '\n', (rec) => {
    if (!rec) return true;
    const msg = JSON.parse(rec) as RgJsonMessage;
    if (msg.type === 'begin') {
      current = { path: resolve(base, rgText(msg.data.path)), lines: [], count: 0 };
    } else if ((msg.type === 'match' || msg.type === 'context') && current) {
      const text = rgText(msg.data.lines).replace(/\n$/, '');
      const first = msg.data.line_number ?? 0;
      const parts = text.split('\n');
      const match = msg.type === 'match';
      if (match) current.count += parts.length;
      if (keepLines) parts.forEach((p, i) => current!.lines.push({ line: first + i, text: capLine(p), match }));
      total += parts.length;
    } else if (msg.type === 'end' && current) {
      if (current.count > 0) files.push(current);
      current = undefined;
      if (wantLines > 0 && total >= wantLines) return false;
    }
    return true;
  });
  return { files, timedOut };
}
