// A resumed session's conversation, drawn as the rows it made when it ran (`--resume`, `--continue`,
// `/resume`): the person's prompts, the answers, thoughts folded, one row per tool call with its
// result (a file edit's as the diff it showed, from the tool's structured result kept in the
// transcript; which calls edit files, and which, is what their tools declare: `editedFiles`'s to say). What the runtime added to a prompt for the model (<system-reminder> blocks:
// attached files, context) is left out, as it was when the prompt was typed.
import type { HistoryMessage } from '../loop/events.js';
import { type EditedFilesOf, resultDiff } from './diff.js';
import { callLabel, contentText } from './format.js';
import type { Item, NewItem, ToolStatus } from './store.js';

type Block = { type: string; [k: string]: unknown };

/** toolResults: the tools' structured results by tool_use id (what a transcript line keeps as `toolUseResult`). */
export function replayItems(
  history: readonly HistoryMessage[],
  toolResults: ReadonlyMap<string, unknown> = new Map(),
  editedFiles: EditedFilesOf = () => undefined,
): NewItem[] {
  const items: NewItem[] = [];
  const tools = new Map<string, Extract<Item, { kind: 'tool' }>>();
  for (const m of history) {
    const blocks: Block[] = typeof m.content === 'string' ? [{ type: 'text', text: m.content }] : m.content;
    if (m.role === 'user') {
      for (const b of blocks) {
        if (b.type !== 'tool_result') continue;
        const tool = tools.get(String(b.tool_use_id));
        if (!tool) continue;
        const failed = b.is_error === true;
        tool.status = (failed ? 'error' : 'ok') as ToolStatus;
        tool.result = contentText(b.content);
        const diff = failed
          ? undefined
          : resultDiff(editedFiles(tool.name, tool.input), toolResults.get(String(b.tool_use_id)));
        if (diff) tool.diff = diff;
      }
      const typed = blocks
        .filter((b) => b.type === 'text' && typeof b.text === 'string' && !b.text.startsWith('<system-reminder>'))
        .map((b) => String(b.text))
        .join('\n')
        .trim();
      if (typed) items.push({ kind: 'user', text: typed });
      continue;
    }
    for (const b of blocks) {
      if (b.type === 'thinking' && typeof b.thinking === 'string' && b.thinking.trim())
        items.push({ kind: 'thinking', text: b.thinking.trim() });
      else if (b.type === 'text' && typeof b.text === 'string' && b.text.trim())
        items.push({ kind: 'text', text: b.text.trim() });
      else if (b.type === 'tool_use') {
        const name = String(b.name);
        const tool: Extract<Item, { kind: 'tool' }> = {
          kind: 'tool',
          id: `replay-${String(b.id)}`,
          name,
          input: b.input,
          label: callLabel(name, b.input),
          nested: false,
          // A call whose result is not in the history did not finish.
          status: 'error',
        };
        tools.set(String(b.id), tool);
        items.push(tool);
      }
    }
  }
  return items;
}
