// get_context_usage: how the next request would fill the model's context window, by category
// (system prompt, built-in and MCP tool schemas, memory files, messages, the compaction reserve,
// free space), shaped as the SDK's SDKControlGetContextUsageResponse. Sizes are estimates at four
// characters a token over the exact bytes the next request would send; `apiUsage` is what the
// API itself reported for the last call, when there was one.
import type { ApiTool } from '../loop/model.js';
import type { HistoryMessage } from '../loop/events.js';
import { autoCompactPct } from '../loop/compaction.js';
import { contextWindow } from '../loop/pricing.js';
import type { MemoryFile } from '../settings/memory.js';
import type { SystemBlocks } from '../prompt/systemPrompt.js';

export const estimateTokens = (text: string): number => Math.ceil(text.length / 4);

export interface ContextUsageInput {
  model: string;
  system: SystemBlocks;
  /** The formatted memory block inside `system` (counted under memory files, not the prompt). */
  memoryText: string;
  memoryFiles: MemoryFile[];
  tools: ApiTool[];
  /** Tools withheld behind ToolSearch and not loaded (MCP, and built-ins marked deferred): 'deferred' rows, outside the usage. */
  deferredTools?: ApiTool[];
  history: HistoryMessage[];
  agents: Array<{ agentType: string; source: string; description: string }>;
  apiUsage: {
    input_tokens: number;
    output_tokens: number;
    cache_creation_input_tokens: number;
    cache_read_input_tokens: number;
  } | null;
  env?: NodeJS.ProcessEnv;
}

type Kind = 'used' | 'free' | 'buffer' | 'deferred';

const COLORS: Record<string, string> = {
  system_prompt: 'promptBorder',
  system_tools: 'inactive',
  mcp_tools: 'cyan_FOR_SUBAGENTS_ONLY',
  memory_files: 'claude',
  messages: 'purple_FOR_SUBAGENTS_ONLY',
  autocompact_buffer: 'inactive',
  free_space: 'promptBorder',
};

export function contextUsage(i: ContextUsageInput, detail: 'summary' | 'full' = 'summary') {
  const env = i.env ?? process.env;
  const window = contextWindow(i.model);
  const systemText = i.system.map((b) => b.text).join('\n\n');
  const memoryTokens = estimateTokens(i.memoryText);
  const systemTokens = Math.max(0, estimateTokens(systemText) - memoryTokens);
  const toolTokens = (t: ApiTool) => estimateTokens(JSON.stringify(t));
  const builtin = i.tools.filter((t) => !t.name.startsWith('mcp__'));
  const mcp = i.tools.filter((t) => t.name.startsWith('mcp__'));
  const builtinTokens = builtin.reduce((n, t) => n + toolTokens(t), 0);
  const mcpTokens = mcp.reduce((n, t) => n + toolTokens(t), 0);
  const deferred = (i.deferredTools ?? []).filter((t) => t.name.startsWith('mcp__'));
  const deferredTokens = deferred.reduce((n, t) => n + toolTokens(t), 0);
  const deferredBuiltin = (i.deferredTools ?? []).filter((t) => !t.name.startsWith('mcp__'));
  const deferredBuiltinTokens = deferredBuiltin.reduce((n, t) => n + toolTokens(t), 0);
  const messageTokens = i.history.reduce((n, m) => n + estimateTokens(JSON.stringify(m.content)), 0);
  const compactEnabled = !['1', 'true'].includes(String(env.DISABLE_AUTO_COMPACT ?? '').toLowerCase());
  const threshold = Math.floor((window * autoCompactPct(env)) / 100);
  const used = systemTokens + builtinTokens + mcpTokens + memoryTokens + messageTokens;
  const buffer = compactEnabled ? Math.max(0, window - threshold) : 0;
  const free = Math.max(0, window - used - buffer);
  const rows: Array<{ id: string; name: string; tokens: number; kind: Kind }> = [
    { id: 'system_prompt', name: 'System prompt', tokens: systemTokens, kind: 'used' },
    { id: 'system_tools', name: 'System tools', tokens: builtinTokens, kind: 'used' },
    ...(deferredBuiltin.length
      ? [
          {
            id: 'system_tools_deferred',
            name: 'System tools (deferred)',
            tokens: deferredBuiltinTokens,
            kind: 'deferred' as Kind,
          },
        ]
      : []),
    ...(mcp.length ? [{ id: 'mcp_tools', name: 'MCP tools', tokens: mcpTokens, kind: 'used' as Kind }] : []),
    ...(deferred.length
      ? [{ id: 'mcp_tools_deferred', name: 'MCP tools (deferred)', tokens: deferredTokens, kind: 'deferred' as Kind }]
      : []),
    ...(i.memoryFiles.length
      ? [{ id: 'memory_files', name: 'Memory files', tokens: memoryTokens, kind: 'used' as Kind }]
      : []),
    { id: 'messages', name: 'Messages', tokens: messageTokens, kind: 'used' },
    ...(buffer
      ? [{ id: 'autocompact_buffer', name: 'Autocompact buffer', tokens: buffer, kind: 'buffer' as Kind }]
      : []),
    { id: 'free_space', name: 'Free space', tokens: free, kind: 'free' },
  ];
  const categories = rows.map((r) => ({ ...r, color: COLORS[r.id] ?? 'inactive' }));
  const memoryFiles = i.memoryFiles.map((f) => ({
    path: f.path,
    type: memoryType(f.kind),
    tokens: estimateTokens(f.content),
  }));
  return {
    categories,
    totalTokens: used,
    maxTokens: window,
    rawMaxTokens: window,
    percentage: Math.round((used / window) * 1000) / 10,
    gridRows: grid(categories, window),
    model: i.model,
    memoryFiles,
    mcpTools: [
      ...mcp.map((t) => ({
        name: t.name,
        serverName: t.name.split('__')[1] ?? '',
        tokens: toolTokens(t),
        isLoaded: true,
      })),
      ...deferred.map((t) => ({
        name: t.name,
        serverName: t.name.split('__')[1] ?? '',
        tokens: toolTokens(t),
        isLoaded: false,
      })),
    ],
    ...(deferredBuiltin.length
      ? { deferredBuiltinTools: deferredBuiltin.map((t) => ({ name: t.name, tokens: toolTokens(t), isLoaded: false })) }
      : {}),
    ...(detail === 'full' ? { systemTools: builtin.map((t) => ({ name: t.name, tokens: toolTokens(t) })) } : {}),
    agents: i.agents.map((a) => ({ agentType: a.agentType, source: a.source, tokens: estimateTokens(a.description) })),
    ...(compactEnabled ? { autoCompactThreshold: threshold } : {}),
    isAutoCompactEnabled: compactEnabled,
    apiUsage: i.apiUsage,
  };
}

function memoryType(kind: MemoryFile['kind']): string {
  switch (kind) {
    case 'user':
      return 'User';
    case 'local':
      return 'Local';
    default:
      return 'Project';
  }
}

/** A 10×10 grid of the window, each square filled by the category that holds most of it. */
function grid(categories: Array<{ name: string; tokens: number; color: string; kind: Kind }>, window: number) {
  const squares = 100;
  const per = window / squares;
  const cells: Array<{
    color: string;
    isFilled: boolean;
    categoryName: string;
    tokens: number;
    percentage: number;
    squareFullness: number;
  }> = [];
  for (const c of categories) {
    // Deferred tool schemas are out of the window: listed, never drawn.
    if (c.kind === 'deferred') continue;
    const n = Math.round(c.tokens / per);
    for (let k = 0; k < n && cells.length < squares; k++)
      cells.push({
        color: c.color,
        isFilled: c.kind !== 'free',
        categoryName: c.name,
        tokens: c.tokens,
        percentage: Math.round((c.tokens / window) * 1000) / 10,
        squareFullness: 1,
      });
  }
  const free = categories.find((c) => c.kind === 'free');
  while (cells.length < squares)
    cells.push({
      color: free?.color ?? 'inactive',
      isFilled: false,
      categoryName: 'Free space',
      tokens: free?.tokens ?? 0,
      percentage: 0,
      squareFullness: 0,
    });
  const rows = [];
  for (let r = 0; r < 10; r++) rows.push(cells.slice(r * 10, r * 10 + 10));
  return rows;
}
