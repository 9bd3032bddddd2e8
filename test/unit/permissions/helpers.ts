import { z } from 'zod';
import { makeTempDir } from '../../tempDirs.js';
import type { Tool } from '../../../tools/tool.js';
import { BashTool } from '../../../tools/bash.js';
import { EditTool } from '../../../tools/edit.js';
import { GlobTool } from '../../../tools/glob.js';
import { GrepTool } from '../../../tools/grep.js';
import { ReadTool } from '../../../tools/read.js';
import { WriteTool } from '../../../tools/write.js';
import { createPermissionState, type PermissionStateOptions } from '../../../src/permissions/index.js';

export function tmpDir(prefix = 'perm-'): string {
  return makeTempDir(prefix);
}

/** A tool whose read-only answer the test picks; `like` lends it a real tool's declarations (kind, access, rule specifiers). */
export function fakeTool(name: string, readOnly: boolean | ((input: any) => boolean), like?: Tool): Tool {
  const { kind, access, label, matchesRuleContent, suggestRuleContent, refuseInMode } = (like ?? {}) as Partial<Tool>;
  return {
    ...(like ? { kind, access, label, matchesRuleContent, suggestRuleContent, refuseInMode } : {}),
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

export const Bash = fakeTool('Bash', (i: { command: string }) => /^(echo|cat|ls)\b/.test(i.command), BashTool as Tool);
export const Read = fakeTool('Read', true, ReadTool as Tool);
export const Glob = fakeTool('Glob', true, GlobTool as Tool);
export const Grep = fakeTool('Grep', true, GrepTool as Tool);
export const Write = fakeTool('Write', false, WriteTool as Tool);
export const Edit = fakeTool('Edit', false, EditTool as Tool);

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
