// The host's view of files through the session: read_file (a file's text, within what the
// session's permissions let the agent read) and seed_read_state (the host saw a Read that is no
// longer in context; mark the file read so a later Edit is allowed, unless it changed since).
import { open, stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import type { FileReadRecord } from '../../tools/tool.js';
import type { PermissionDecision } from '../permissions/decision.js';

export const DEFAULT_READ_FILE_MAX_BYTES = 1024 * 1024;

export interface HostFileDeps {
  cwd: string;
  /** The session's permission decision for a Read of this absolute path. */
  decideRead: (absPath: string) => PermissionDecision;
  /** The main agent's read-state (what Read saw): Write and Edit check against it. */
  readFiles: Map<string, FileReadRecord>;
}

export async function readFileForHost(
  deps: HostFileDeps,
  req: { path: string; max_bytes?: number | null; encoding?: 'utf-8' | 'base64' | null },
): Promise<{ contents: string; absPath: string; truncated?: boolean; encoding?: 'base64'; lossy?: boolean }> {
  const absPath = resolve(deps.cwd, req.path);
  const decision = deps.decideRead(absPath);
  if (decision.behavior === 'deny') throw new Error(`read_file: ${decision.message}`);
  if (decision.behavior === 'ask')
    throw new Error(
      `read_file: ${absPath} is outside what this session may read without asking (${decision.reason}); ${decision.hint}`,
    );
  const max = req.max_bytes ?? DEFAULT_READ_FILE_MAX_BYTES;
  let handle;
  try {
    handle = await open(absPath, 'r');
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    throw new Error(`read_file: cannot read ${absPath}: ${e.code === 'ENOENT' ? 'no such file' : e.message}`);
  }
  try {
    const st = await handle.stat();
    if (!st.isFile()) throw new Error(`read_file: ${absPath} is not a file`);
    const buf = Buffer.alloc(Math.min(max, st.size));
    const { bytesRead } = await handle.read(buf, 0, buf.length, 0);
    const bytes = buf.subarray(0, bytesRead);
    const truncated = st.size > bytesRead;
    if (req.encoding === 'base64')
      return { contents: bytes.toString('base64'), absPath, encoding: 'base64', ...(truncated ? { truncated } : {}) };
    let lossy = false;
    try {
      new TextDecoder('utf-8', { fatal: true }).decode(bytes);
    } catch {
      lossy = true;
    }
    return { contents: bytes.toString('utf8'), absPath, ...(truncated ? { truncated } : {}), lossy };
  } finally {
    await handle.close();
  }
}

/** Mark `path` as read at `mtime` (floored ms). Skipped (false) when the file changed since. */
export async function seedReadState(deps: HostFileDeps, path: string, mtime: number): Promise<boolean> {
  const absPath = resolve(deps.cwd, path);
  let st;
  try {
    st = await stat(absPath);
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    throw new Error(`seed_read_state: cannot stat ${absPath}: ${e.code === 'ENOENT' ? 'no such file' : e.message}`);
  }
  if (!st.isFile()) throw new Error(`seed_read_state: ${absPath} is not a file`);
  if (Math.floor(st.mtimeMs) > Math.floor(mtime)) return false; // changed since the host saw it: a fresh Read is needed
  deps.readFiles.set(absPath, { mtimeMs: st.mtimeMs, size: st.size });
  return true;
}
