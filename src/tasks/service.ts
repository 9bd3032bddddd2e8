// The registry as tools see it (`ctx.services.tasks`): look up, wait for, read and stop tasks.
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import type { BackgroundTaskView, TaskControlService } from '../../tools/taskOutput.js';
import { withTimeout } from '../util/withTimeout.js';
import type { TaskRecord, TaskRegistry } from './registry.js';

function view(t: TaskRecord): BackgroundTaskView {
  return {
    id: t.id,
    kind: t.kind,
    status: t.status,
    description: t.description,
    ...(t.command !== undefined ? { command: t.command } : {}),
    outputFile: t.outputFile,
    ...(t.exitCode !== undefined ? { exitCode: t.exitCode } : {}),
    ...(t.resultText !== undefined ? { resultText: t.resultText } : {}),
  };
}

/** The last `maxChars` characters (about) of a file, read without loading all of it. */
export function readTail(path: string, maxChars: number): string {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch {
    return '';
  }
  try {
    const size = fstatSync(fd).size;
    const want = Math.min(size, maxChars * 4);
    const buf = Buffer.alloc(want);
    const n = readSync(fd, buf, 0, want, size - want);
    let text = buf.subarray(0, n).toString('utf8');
    let cut = size > want;
    if (text.length > maxChars) {
      text = text.slice(text.length - maxChars);
      cut = true;
    }
    return cut ? `[earlier output omitted; the full output is in ${path}]\n${text}` : text;
  } finally {
    closeSync(fd);
  }
}

export function createTaskControlService(registry: TaskRegistry): TaskControlService {
  return {
    get: (id) => {
      const t = registry.get(id);
      return t ? view(t) : undefined;
    },
    async wait(id, timeoutMs, signal) {
      const t = registry.get(id);
      if (t?.status !== 'running') return;
      await withTimeout(t.done, timeoutMs, signal);
    },
    readOutput: (id, maxChars) => {
      const t = registry.get(id);
      return t ? readTail(t.outputFile, maxChars) : '';
    },
    async stop(id) {
      const t = await registry.stop(id);
      return t ? view(t) : undefined;
    },
    markSeen: (id) => registry.markSeen(id),
  };
}
