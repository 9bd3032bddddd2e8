import { z } from 'zod';
import { makeTempDir } from '../../tempDirs.js';
import type { Tool } from '../../../tools/tool.js';
import { createPermissionState, type PermissionStateOptions } from '../../../src/permissions/index.js';

export function tmpDir(prefix = 'perm-'): string {
  return makeTempDir(prefix);
}

export function fakeTool(name: string, readOnly: boolean | ((input: any) => boolean)): Tool {
  return {
    name,
    description: name,
    inputSchema: z.any(),
    isReadOnly: (input: unknown) => (typeof readOnly === 'function' ? readOnly(input) : readOnly),
    isConcurrencySafe: () => false,
    async *call() {
      return { content: 'ok' };
    },
  };
}

export const Bash = fakeTool('Bash', (i: { command: string }) => /^(echo|cat|ls)\b/.test(i.command));
export const Read = fakeTool('Read', true);
export const Glob = fakeTool('Glob', true);
export const Grep = fakeTool('Grep', true);
export const Write = fakeTool('Write', false);
export const Edit = fakeTool('Edit', false);

export function state(opts: Partial<PermissionStateOptions> & { cwd: string }) {
  return createPermissionState({
    mode: 'default',
    allow: [],
    deny: [],
    ask: [],
    additionalDirectories: [],
    allowBypass: false,
    ...opts,
  });
}
