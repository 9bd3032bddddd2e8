// Pure text helpers of the terminal UI: a tool call's one-line label, a result's preview, the
// rule an "always" answer adds. No Ink here, so they are unit-tested as plain functions.
import type { PermissionUpdate } from '../permissions/updates.js';

/** `Bash(echo hi)`, `Read(/a/b.ts)`: the call's most telling input field, on one short line. */
export function callLabel(name: string, input: unknown, max = 80): string {
  const i = (input && typeof input === 'object' ? input : {}) as Record<string, unknown>;
  const keys = ['command', 'file_path', 'path', 'pattern', 'url', 'description', 'prompt', 'query', 'task_id'];
  const key = keys.find((k) => typeof i[k] === 'string') ?? Object.keys(i).find((k) => typeof i[k] === 'string');
  const arg = key ? oneLine(String(i[key]), max) : '';
  return `${name}(${arg})`;
}

export function oneLine(s: string, max: number): string {
  const flat = s.replace(/\s*\n\s*/g, ' ').trim();
  return flat.length <= max ? flat : `${flat.slice(0, max - 1)}…`;
}

/** A tool result's content (a string or content blocks) as text. */
export function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .map((b: { type?: string; text?: string }) => (b?.type === 'text' ? (b.text ?? '') : `[${b?.type}]`))
    .join('\n');
}

/** The first `max` lines of a result, and how many more there were. */
export function headLines(text: string, max: number): { lines: string[]; more: number } {
  const all = text.replace(/\n+$/, '').split('\n');
  if (all.length === 1 && all[0] === '') return { lines: [], more: 0 };
  return { lines: all.slice(0, max), more: Math.max(0, all.length - max) };
}

/** The last `max` lines (Bash output: what matters is where it ended), and how many came before. */
export function tailLines(text: string, max: number): { lines: string[]; more: number } {
  const all = text.replace(/\n+$/, '').split('\n');
  if (all.length === 1 && all[0] === '') return { lines: [], more: 0 };
  return { lines: all.slice(-max), more: Math.max(0, all.length - max) };
}

const WHERE: Record<string, string> = {
  session: 'for this session',
  localSettings: 'in .claude/settings.local.json',
  projectSettings: 'in .claude/settings.json',
  userSettings: 'in your user settings',
  cliArg: 'for this run',
};

/** What "yes, always" will add, in words: `allow Bash(npm test:*) for this session`. */
export function describeUpdates(updates: PermissionUpdate[]): string {
  return updates
    .map((u) => {
      const where = WHERE[u.destination] ?? u.destination;
      switch (u.type) {
        case 'addRules':
        case 'replaceRules':
          return `${u.behavior} ${u.rules.map((r) => (r.ruleContent ? `${r.toolName}(${r.ruleContent})` : r.toolName)).join(', ')} ${where}`;
        case 'setMode':
          return `switch to ${u.mode} mode ${where}`;
        case 'addDirectories':
          return `allow access to ${u.directories.join(', ')} ${where}`;
        default:
          return `${u.type} ${where}`;
      }
    })
    .join('; ');
}

export function formatCost(usd: number): string {
  return `$${usd.toFixed(usd >= 10 ? 2 : 4)}`;
}

/** How long ago, in one short unit: `just now`, `5m ago`, `3h ago`, `2d ago`. */
export function ago(ms: number, now = Date.now()): string {
  const s = Math.max(0, Math.round((now - ms) / 1000));
  if (s < 60) return 'just now';
  if (s < 3600) return `${Math.floor(s / 60)}m ago`;
  if (s < 86_400) return `${Math.floor(s / 3600)}h ago`;
  return `${Math.floor(s / 86_400)}d ago`;
}
