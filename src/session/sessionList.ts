// This project's saved sessions for the terminal's resume picker: each transcript's id, its title
// (the last custom-title line, if any), its first prompt and when it was last written.
import { open, readdir, stat } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { transcriptPath } from '../transcript/transcript.js';

export interface SessionSummary {
  sessionId: string;
  title?: string;
  firstPrompt: string;
  modifiedMs: number;
}

const SESSION_FILE = /^[0-9a-f-]{36}\.jsonl$/i;
/** Only a transcript's head is read: the first prompt is there, and titles are set early. */
const HEAD_BYTES = 256 * 1024;

export async function listProjectSessions(env: NodeJS.ProcessEnv, cwd: string): Promise<SessionSummary[]> {
  const dir = dirname(transcriptPath(env, cwd, 'x'));
  let names: string[];
  try {
    names = await readdir(dir);
  } catch {
    return [];
  }
  const out: SessionSummary[] = [];
  for (const name of names.filter((n) => SESSION_FILE.test(n))) {
    const file = join(dir, name);
    try {
      const st = await stat(file);
      const head = await readHead(file);
      const s = summarise(head);
      if (!s.firstPrompt) continue; // nothing was ever asked in it
      out.push({ sessionId: basename(name, '.jsonl'), modifiedMs: st.mtimeMs, ...s });
    } catch {
      // vanished or unreadable: not offered
    }
  }
  return out.sort((a, b) => b.modifiedMs - a.modifiedMs);
}

async function readHead(file: string): Promise<string> {
  const fh = await open(file, 'r');
  try {
    const buf = Buffer.alloc(HEAD_BYTES);
    const { bytesRead } = await fh.read(buf, 0, HEAD_BYTES, 0);
    return buf.subarray(0, bytesRead).toString('utf8');
  } finally {
    await fh.close();
  }
}

function summarise(head: string): { title?: string; firstPrompt: string } {
  let title: string | undefined;
  let firstPrompt = '';
  for (const line of head.split('\n')) {
    if (!line.trim()) continue;
    let e: { type?: string; customTitle?: unknown; message?: { content?: unknown } };
    try {
      e = JSON.parse(line);
    } catch {
      continue; // the head may end mid-line
    }
    if (e.type === 'custom-title' && typeof e.customTitle === 'string') title = e.customTitle;
    if (e.type === 'user' && !firstPrompt) firstPrompt = promptText(e.message?.content);
  }
  return { ...(title ? { title } : {}), firstPrompt };
}

/** A user message's typed text (not tool results, not reminders the runtime added). */
function promptText(content: unknown): string {
  const texts =
    typeof content === 'string'
      ? [content]
      : Array.isArray(content)
        ? content.filter((b) => b?.type === 'text' && typeof b.text === 'string').map((b) => b.text as string)
        : [];
  return texts.find((t) => !t.startsWith('<system-reminder>'))?.trim() ?? '';
}
