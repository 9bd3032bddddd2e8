// MCP servers' prompts (prompts/list, prompts/get) as slash commands: `/mcp__server__prompt args`
// gets the prompt with the arguments, in the order the server lists them (the last one takes the
// rest of the line), and sends its messages' text as the turn's prompt.
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { GetPromptResult, Prompt } from '@modelcontextprotocol/sdk/types.js';
import type { ExtraCommand } from '../commands/slashCommands.js';
import { mcpToolName } from './names.js';

export async function listPrompts(client: Client, timeoutMs: number): Promise<Prompt[]> {
  const out: Prompt[] = [];
  let cursor: string | undefined;
  do {
    const page = await client.listPrompts(cursor ? { cursor } : undefined, { timeout: timeoutMs });
    out.push(...page.prompts);
    cursor = page.nextCursor;
  } while (cursor);
  return out;
}

/** `<focus> [detail]`: the prompt's arguments, required ones in angle brackets. */
export function promptArgumentHint(p: Prompt): string {
  return (p.arguments ?? []).map((a) => (a.required ? `<${a.name}>` : `[${a.name}]`)).join(' ');
}

/** The typed arguments by name, in the listed order; the last takes the rest. Throws naming a missing required one. */
export function promptArguments(p: Prompt, args: string): Record<string, string> {
  const names = p.arguments ?? [];
  const words = args.trim() ? args.trim().split(/\s+/) : [];
  const out: Record<string, string> = {};
  names.forEach((a, i) => {
    const value = i === names.length - 1 ? words.slice(i).join(' ') : words[i];
    if (value) out[a.name] = value;
    else if (a.required) throw new Error(`missing the argument ${a.name} (${promptArgumentHint(p)})`);
  });
  return out;
}

/** The prompt's messages as the text of one prompt (resources and images as their names). */
export function promptText(result: GetPromptResult): string {
  return result.messages
    .map((m) => {
      const c = m.content as { type: string; text?: string; resource?: { uri?: string; text?: string } };
      if (c.type === 'text') return c.text ?? '';
      if (c.type === 'resource') return c.resource?.text ?? `[resource ${c.resource?.uri ?? ''}]`;
      return `[${c.type}]`;
    })
    .join('\n\n');
}

/** A connected server's prompt, and how to get it with arguments. */
export interface ServerPrompt {
  server: string;
  prompt: Prompt;
  get(args: Record<string, string>): Promise<GetPromptResult>;
}

export function mcpPromptCommands(prompts: () => ServerPrompt[]): () => ExtraCommand[] {
  return () =>
    prompts().map(({ server, prompt, get }) => ({
      name: mcpToolName(server, prompt.name),
      description: `${prompt.description ?? prompt.title ?? prompt.name} (MCP: ${server})`,
      argumentHint: promptArgumentHint(prompt),
      run: async (args) => {
        const result = await get(promptArguments(prompt, args));
        return { kind: 'prompt' as const, prompt: promptText(result), allowedTools: [] };
      },
    }));
}
