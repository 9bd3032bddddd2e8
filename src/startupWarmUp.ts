// What the start-up snapshot (scripts/snapshot.cjs) runs once at build time, so the code every
// start runs is compiled and zod's parsers for it are made when the snapshot is taken: pure calls
// whose results are thrown away, or kept in caches that would hold the same at every start (the
// default AskUserQuestion tool). Nothing here may depend on the environment, clock or process.
import { builtinTools } from '../tools/registry.js';
import { parseOptions } from './cli/options.js';
import { describeInboundProblem } from './protocol/inbound.js';

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
  builtinTools({ env: {} });
}
