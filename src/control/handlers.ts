// The control requests a host may send, each answered by a handler. Unknown subtypes are answered
// with an error by the channel itself.
import {
  initializeRequestSchema,
  setMaxThinkingTokensRequestSchema,
  setModelRequestSchema,
  setPermissionModeRequestSchema,
  type PermissionMode,
} from '../protocol/inbound.js';
import type { ControlChannel } from './channel.js';
import { parseControlRequest } from './parseRequest.js';
import { handleInitialize, type InitializeTarget } from './initializeHandler.js';

export interface ControlTarget {
  initialize: InitializeTarget;
  interrupt(): void;
  setModel(model: string | undefined): void;
  setPermissionMode(mode: PermissionMode): void;
  setMaxThinkingTokens(tokens: number | null): void;
  mcpStatus(): unknown;
}

export function registerControlHandlers(channel: ControlChannel, target: ControlTarget): void {
  channel.on('initialize', (req) =>
    handleInitialize(parseControlRequest(initializeRequestSchema, req, 'initialize'), target.initialize),
  );
  channel.on('interrupt', () => {
    target.interrupt();
    return {};
  });
  channel.on('set_model', (req) => {
    if ('model' in req && req.model !== undefined && req.model !== null && typeof req.model !== 'string')
      throw new Error('set_model: model must be a string');
    target.setModel(
      parseControlRequest(setModelRequestSchema, { ...req, model: req.model ?? undefined }, 'set_model').model,
    );
    return {};
  });
  channel.on('set_permission_mode', (req) => {
    target.setPermissionMode(parseControlRequest(setPermissionModeRequestSchema, req, 'set_permission_mode').mode);
    return {};
  });
  channel.on('set_max_thinking_tokens', (req) => {
    target.setMaxThinkingTokens(
      parseControlRequest(setMaxThinkingTokensRequestSchema, req, 'set_max_thinking_tokens').max_thinking_tokens,
    );
    return {};
  });
  channel.on('mcp_status', () => target.mcpStatus());
}
