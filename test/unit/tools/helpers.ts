// Shared fixtures for the tool tests: a temp dir per test and a bare ToolContext.
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { makeTempDir } from '../../tempDirs.js';
import type { Tool, ToolContext, ToolResult } from '../../../tools/tool.js';
import { runTool } from '../../../tools/registry.js';

export function tempDir(prefix = 'tools-test-'): string {
  return makeTempDir(prefix);
}

export function removeDir(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
}

export function makeCtx(cwd: string, over: Partial<ToolContext> = {}): ToolContext {
  return {
    cwd,
    signal: new AbortController().signal,
    sessionId: 'test-session',
    readFiles: new Map(),
    scratchDir: join(cwd, '.scratch'),
    toolUseId: 'toolu_test',
    ...over,
  };
}

/** Run a tool through the registry wrapper, draining progress, and return its result. */
export async function run(tool: Tool, input: unknown, ctx: ToolContext): Promise<ToolResult> {
  const gen = runTool(tool, input, ctx);
  for (;;) {
    const step = await gen.next();
    if (step.done) return step.value;
  }
}

export function text(result: ToolResult): string {
  if (typeof result.content === 'string') return result.content;
  return result.content.map((b) => (b.type === 'text' ? b.text : `[${b.type}]`)).join('\n');
}
