// Prompts that queued up while a turn ran go to the model together, as one turn: ten thousand
// prompts written at once cost a few model calls, not ten thousand. Each prompt keeps its text
// (its blocks, in order) and its uuid; a prompt that cannot be sent at all is kept out.

export type UserContent = string | Array<{ type: string; [k: string]: unknown }>;

export interface QueuedPrompt {
  content: UserContent;
  /** The host's uuid for this prompt (its transcript line's uuid; rewind_files names it). */
  uuid?: string;
  /** A background task's or a teammate's notice, not a user prompt (no UserPromptSubmit hooks). */
  notification?: boolean;
}

/** Why `content` cannot be sent to the API (null: it can). Checked once, when it is taken from the queue. */
export function unsendableReason(content: UserContent): string | null {
  try {
    JSON.stringify(content);
    return null;
  } catch (err) {
    return `it cannot be serialised as JSON (${(err as Error).message})`;
  }
}

/** One prompt's content as blocks. */
export function toBlocks(content: UserContent): Array<{ type: string; [k: string]: unknown }> {
  return typeof content === 'string' ? [{ type: 'text', text: content }] : content;
}

/**
 * The content of one turn made of several queued prompts: their blocks, in the order they came.
 * A single prompt is returned as it is (a string stays a string).
 */
export function mergePromptContents(prompts: readonly QueuedPrompt[]): UserContent {
  if (prompts.length === 1) return prompts[0].content;
  return prompts.flatMap((p) => toBlocks(p.content));
}

/**
 * Split what was waiting in the queue into turns: consecutive user prompts merge into one turn;
 * a notice is a turn of its own (it must not pass the prompts queued before it).
 */
export function batchQueued(prompts: readonly QueuedPrompt[]): QueuedPrompt[][] {
  const turns: QueuedPrompt[][] = [];
  for (const p of prompts) {
    const last = turns[turns.length - 1];
    if (last && !p.notification && !last[0].notification) last.push(p);
    else turns.push([p]);
  }
  return turns;
}
