// `@path` in a prompt typed at the terminal attaches that file: its numbered lines go to the model
// before the prompt, as a reminder that says it was read, the way the reference records a mention
// (measured: a "called Read" and a "Read's result" text block ahead of the prompt, which keeps its
// `@path` as typed). Paths that are not readable files are left as typed.
import { readFileSync, statSync } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';

/** A file larger than this is not attached (the model can Read a part of it). */
const MAX_BYTES = 256 * 1024;

export type Block = { type: 'text'; text: string };

/** The `@path` mentions of a prompt (a path may be quoted when it has spaces: `@"a b.txt"`). */
export function mentionedPaths(prompt: string): string[] {
  const out: string[] = [];
  for (const m of prompt.matchAll(/(?:^|\s)@(?:"([^"]+)"|([^\s"]+))/g)) {
    const p = (m[1] ?? m[2]).replace(/[.,;:!?)]+$/, '');
    if (p && !out.includes(p)) out.push(p);
  }
  return out;
}

/**
 * The prompt's content: the mentioned files' text blocks, then the prompt; a string when none.
 * `markRead` hears each file attached, as Read would record it: the model has seen it whole, so a
 * following Edit or Write of it is allowed (as on the reference) until the file changes.
 */
export function withMentionedFiles(
  prompt: string,
  cwd: string,
  markRead: (file: string, seen: { mtimeMs: number; size: number }) => void = () => {},
): string | Block[] {
  if (prompt.trimStart().startsWith('/')) return prompt; // a slash command's arguments stay text
  const blocks: Block[] = [];
  for (const p of mentionedPaths(prompt)) {
    const file = isAbsolute(p) ? p : resolve(cwd, p);
    let text: string;
    try {
      const st = statSync(file);
      if (!st.isFile() || st.size > MAX_BYTES) continue;
      text = readFileSync(file, 'utf8');
      markRead(file, { mtimeMs: st.mtimeMs, size: st.size });
    } catch {
      continue;
    }
    const numbered = text
      .replace(/\n$/, '')
      .split('\n')
      .map((l, i) => `${i + 1}\t${l}`)
      .join('\n');
    blocks.push({
      type: 'text',
      text: `<system-reminder>\nThe user attached ${file} to this message. Its contents, as the Read tool would show them:\n${numbered}\n</system-reminder>`,
    });
  }
  return blocks.length ? [...blocks, { type: 'text', text: prompt }] : prompt;
}
