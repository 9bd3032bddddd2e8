// One model call made on behalf of a tool (WebFetch's page question, WebSearch's search): through
// the loop's CallModel, so a recording, a replay and the prompt cache cover it, and its usage
// counts in the run's usage like any other call.
import type { AssistantMessage } from './events.js';
import type { LoopConfig } from './agentLoop.js';
import type { SideCallRequest } from '../../tools/tool.js';

// The request is the tool contract's (LoopHandle.sideCall); the reply's text is its replyText.
export type { SideCallRequest } from '../../tools/tool.js';
export { replyText } from '../../tools/agentEvents.js';

/** The whole reply (usage already counted in `loop.usage`). */
export async function sideModelCall(loop: LoopConfig, req: SideCallRequest): Promise<AssistantMessage> {
  let message: AssistantMessage | undefined;
  for await (const ev of loop.callModel({
    model: req.model,
    system: req.system,
    messages: [{ role: 'user', content: [{ type: 'text', text: req.prompt }] }],
    tools: req.tools ?? [],
    maxTokens: req.maxTokens,
    betas: loop.betas,
    signal: req.signal,
    caller: req.caller,
  })) {
    if (ev.type === 'message') message = ev.message;
  }
  if (!message) throw new Error('the model sent no reply');
  loop.usage.add(message.model || req.model, message.usage);
  return message;
}
