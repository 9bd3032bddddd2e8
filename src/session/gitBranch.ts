// The git branch of a folder, for the terminal's status line: read from .git/HEAD (a worktree's
// .git file points to its own), no git process. undefined outside a repository or when detached.
import { readFileSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';

export function gitBranch(cwd: string): string | undefined {
  let dir = resolve(cwd);
  for (;;) {
    const dotGit = join(dir, '.git');
    try {
      const gitDir = statSync(dotGit).isDirectory()
        ? dotGit
        : resolve(
            dir,
            readFileSync(dotGit, 'utf8')
              .replace(/^gitdir:\s*/, '')
              .trim(),
          );
      const head = readFileSync(join(gitDir, 'HEAD'), 'utf8').trim();
      const m = /^ref: refs\/heads\/(.+)$/.exec(head);
      return m ? m[1] : head.slice(0, 7);
    } catch {
      const up = dirname(dir);
      if (up === dir) return undefined;
      dir = up;
    }
  }
}
