// Where a streaming answer can be cut: the finished blocks before the cut are drawn once (Ink's
// <Static>) and only the block being written stays live, so a long answer does not redraw itself
// on every delta. A cut is a blank line outside a code fence, once the next block has begun.

/**
 * The line after a blank one begins a new top-level block (not an indented continuation of a list
 * item, which would read as code if drawn on its own).
 */
const startsBlock = (next: string) => next.length > 0 && !/^\s/.test(next);

/** The length of the settled prefix of `text` (0 when there is none yet); it ends before a blank line. */
export function settledLength(text: string): number {
  let inFence: string | null = null;
  let cut = 0;
  let pos = 0;
  const lines = text.split('\n');
  // The last line has no newline after it yet: it is still being written.
  for (let i = 0; i < lines.length - 1; i++) {
    const line = lines[i];
    const fence = /^ {0,3}(`{3,}|~{3,})/.exec(line)?.[1];
    if (fence) {
      if (inFence === null) inFence = fence;
      else if (fence[0] === inFence[0] && fence.length >= inFence.length && line.trim() === fence) inFence = null;
    } else if (inFence === null && line.trim() === '' && pos > 0 && startsBlock(lines[i + 1])) cut = pos - 1;
    pos += line.length + 1;
  }
  return cut;
}
