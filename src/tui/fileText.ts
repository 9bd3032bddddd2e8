// A file's text for an edit's preview, or null when it does not exist.
import { readFileSync } from 'node:fs';

export function fileTextOrNull(path: string): string | null {
  try {
    return readFileSync(path, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw e;
  }
}
