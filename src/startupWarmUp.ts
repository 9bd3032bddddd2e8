// What the start-up snapshot (scripts/snapshot.cjs) runs once at build time, so the code every
// start runs is compiled and zod's parsers for it are made when the snapshot is taken: pure calls
// whose results are thrown away, or kept in caches that would hold the same at every start (the
// default AskUserQuestion tool). Nothing here may depend on the environment, clock or process.
import { builtinTools, toolApiSchema } from '../tools/registry.js';
import { TaskCreateTool, TaskGetTool, TaskListTool, TaskUpdateTool } from '../tools/teamTasks.js';
import { parseOptions } from './cli/options.js';
import { describeInboundProblem } from './protocol/inbound.js';
import { dropLazySchemas } from './util/lazySchema.js';

export function warmUp(): void {
  const json = ['--output-format', 'stream-json', '--verbose'];
  parseOptions(['--input-format', 'stream-json', ...json, '--permission-prompt-tool', 'stdio', '--model', 'm']);
  parseOptions(['-p', 'x', ...json, '--allowedTools', 'Bash']);
  describeInboundProblem({
    type: 'user',
    session_id: '',
    message: { role: 'user', content: [{ type: 'text', text: 'x' }] },
    parent_tool_use_id: null,
  });
  describeInboundProblem({ type: 'control_request', request_id: 'r', request: { subtype: 'initialize' } });
  // The built-in tools' API definitions are kept; their zod schemas are not (made at a first call).
  const tools = [
    ...builtinTools({ env: {}, agentTeams: true, workflowConcurrency: 1 }),
    ...[TaskCreateTool, TaskGetTool, TaskUpdateTool, TaskListTool],
  ];
  for (const tool of tools) toolApiSchema(tool as Parameters<typeof toolApiSchema>[0]);
  dropLazySchemas();
}
