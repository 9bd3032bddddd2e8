// The prompts a person typed at the terminal, kept per project: one JSON line each in
// <config dir>/history.jsonl ({display, timestamp, project}, as the reference keeps them), read
// back for the UI's Up/Down and Ctrl+R. Only this project's lines are offered.
import { appendFileSync, mkdirSync, readFileSync } from 'node:fs';
import { dirname } from 'node:path';

/** At most this many of a project's prompts are offered (the newest). */
const MAX_ENTRIES = 500;

export interface PromptHistory {
  /** This project's prompts, oldest first, with repeats in a row folded. */
  entries(): string[];
  add(text: string): void;
}

export function promptHistory(file: string, project: string): PromptHistory {
  let cache: string[] | undefined;
  const load = (): string[] => {
    let raw = '';
    try {
      raw = readFileSync(file, 'utf8');
    } catch {
      return [];
    }
    const out: string[] = [];
    for (const line of raw.split('\n')) {
      if (!line) continue;
      try {
        const e = JSON.parse(line) as { display?: unknown; project?: unknown };
        if (e.project === project && typeof e.display === 'string' && e.display && out.at(-1) !== e.display)
          out.push(e.display);
      } catch {
        // A torn line (two agents writing at once) is skipped, not fatal.
      }
    }
    return out.slice(-MAX_ENTRIES);
  };
  return {
    entries: () => (cache ??= load()),
    add(text) {
      const list = (cache ??= load());
      if (!text.trim() || list.at(-1) === text) return;
      list.push(text);
      try {
        mkdirSync(dirname(file), { recursive: true });
        appendFileSync(file, `${JSON.stringify({ display: text, timestamp: Date.now(), project })}\n`, { mode: 0o600 });
      } catch {
        // History is a convenience: a read-only config folder does not stop the prompt.
      }
    },
  };
}
