// The gate a turn's prompts pass before the model sees them: each prompt on its own, one that
// cannot be sent (an unusable attachment) or that a UserPromptSubmit hook blocks is left out and
// said why; the hooks' additional context goes with the rest. A prompt that is a task notification
// passes without the hooks (the user did not write it).
import type { SessionEvent } from './events.js';
import { unsendableReason, type QueuedPrompt } from './promptBatch.js';
import type { SessionHooks } from './runner.js';

export interface GatedPrompts {
  /** The prompts that go to the model, in order. */
  sendable: QueuedPrompt[];
  /** What the hooks added, to go with them. */
  context: string[];
  /** Why each left-out prompt was left out. */
  refused: string[];
}

export async function gatePrompts(
  prompts: QueuedPrompt[],
  beforePrompt: SessionHooks['beforePrompt'],
  emit: (ev: SessionEvent) => void | Promise<void>,
  signal: AbortSignal,
): Promise<GatedPrompts> {
  const gated: GatedPrompts = { sendable: [], context: [], refused: [] };
  for (const prompt of prompts) {
    const unsendable = unsendableReason(prompt.content);
    if (unsendable) {
      gated.refused.push(`The prompt could not be sent: ${unsendable}; it was left out of the conversation`);
      continue;
    }
    const gate = beforePrompt && !prompt.notification ? await beforePrompt(prompt.content, signal, prompt.uuid) : {};
    if (gate.blockReason !== undefined) {
      await emit({ type: 'notice', notice: { subtype: 'prompt_blocked', reason: gate.blockReason } });
      gated.refused.push(`Prompt blocked by a UserPromptSubmit hook: ${gate.blockReason}`);
      continue;
    }
    gated.sendable.push(prompt);
    gated.context.push(...(gate.additionalContext ?? []));
  }
  return gated;
}
