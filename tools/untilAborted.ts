// Every tool answers an interrupt promptly, whatever it is doing: a tool's generator is raced
// against its signal, and one that has not ended ABORT_GRACE_MS after the abort is left behind
// (told to return, in the background) with an interrupted result. Tools still stop their own work
// on the signal (Glob ends its walk, Bash kills its process group); this is the floor for the rest.
import type { ToolProgress, ToolResult } from './tool.js';
import { ToolError } from './tool.js';

/** How long a tool may take to wind down after an interrupt before it is left behind. */
export const ABORT_GRACE_MS = 750;

export async function* untilAborted(
  gen: AsyncGenerator<ToolProgress, ToolResult, void>,
  signal: AbortSignal,
  toolName: string,
  graceMs = ABORT_GRACE_MS,
): AsyncGenerator<ToolProgress, ToolResult, void> {
  let timer: NodeJS.Timeout | undefined;
  let onAbort: (() => void) | undefined;
  // Resolves graceMs after the abort (at once once the grace is spent): the point where we stop waiting.
  const cutOff = new Promise<'cut'>((resolve) => {
    onAbort = () => {
      timer = setTimeout(() => resolve('cut'), graceMs);
    };
    if (signal.aborted) onAbort();
    else signal.addEventListener('abort', onAbort, { once: true });
  });
  try {
    for (;;) {
      const step = await Promise.race([gen.next(), cutOff]);
      if (step === 'cut') {
        // The generator may be mid-await: return() queues behind it; it must not become unhandled.
        gen.return(undefined as never).catch(() => {});
        throw new ToolError(`${toolName} was interrupted.`);
      }
      if (step.done) return step.value;
      yield step.value;
    }
  } finally {
    clearTimeout(timer);
    if (onAbort) signal.removeEventListener('abort', onAbort);
  }
}
