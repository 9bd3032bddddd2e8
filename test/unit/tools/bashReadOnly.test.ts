// The read-only Bash classifier: which commands may run beside the turn's other read-only calls.
import { describe, expect, it } from 'vitest';
import { isReadOnlyBashCommand } from '../../../tools/bashReadOnly.js';
import { BashTool } from '../../../tools/bash.js';

const READ_ONLY = [
  'ls',
  'ls -la src',
  'cat README.md',
  'head -n 20 a.txt',
  'tail -5 log.txt',
  'wc -l *.ts',
  'grep -rn "TODO" src',
  'rg --files',
  'rg -n foo src | head -20',
  'find . -name "*.ts"',
  'find src -type f -newer x',
  'git status',
  'git status --short',
  'git log --oneline -5',
  'git diff HEAD~1',
  'git show HEAD:README.md',
  'git branch',
  'git branch -a -v',
  'git --no-pager log -3',
  'git -C sub status',
  'git rev-parse HEAD',
  'git ls-files',
  'sleep 1',
  'echo hello',
  'printf "%s\\n" a b',
  'pwd',
  'stat package.json',
  'file bin/agent',
  'du -sh .',
  'df -h',
  'which node',
  'env',
  'ls 2>/dev/null',
  'ls 2>&1 | head',
  'cat a.txt | grep x | wc -l',
  'ls && pwd',
  'ls; echo done',
  'echo $(pwd)',
  'echo "$(git rev-parse HEAD)"',
  'cat `ls | head -1`',
  'FOO=bar ls',
  'sort a.txt | uniq -c',
  'jq .name package.json',
  'diff a b',
  'date',
  'test -f x && echo yes',
  'wc -l < input.txt',
  '# a comment\nls',
  'git tag -l',
  'git stash list',
];

const NOT_READ_ONLY = [
  'rm -rf x',
  'ls; rm -rf x',
  'ls && touch y',
  'find . -delete',
  'find . -name "*.tmp" -exec rm {} \\;',
  'find . -fprint out.txt',
  'git -c x=y push',
  'git -c core.pager=evil log',
  'git push',
  'git commit -m x',
  'git checkout main',
  'git branch new-feature',
  'git branch -D old',
  'git diff --output=x.patch',
  'git tag v1',
  'git stash',
  'git',
  'echo $(rm x)',
  'echo `rm x`',
  'cat a > b',
  'echo hi >> log.txt',
  'ls | tee out.txt',
  'echo x >| f',
  'ls &> all.txt',
  'cat <(rm x)',
  'cat <<EOF\nhi\nEOF',
  'sort -o out.txt in.txt',
  'uniq in.txt out.txt',
  'env rm -rf x',
  'rg --pre ./evil foo',
  'date -s "2020-01-01"',
  'xargs rm < list',
  'npm install',
  'node script.js',
  'bash -c "ls"',
  'sh script.sh',
  'eval ls',
  '/bin/rm x',
  './run.sh',
  '$CMD',
  'mkdir d',
  'cp a b',
  'mv a b',
  'chmod +x f',
  'curl https://example.com',
  'python -c "print(1)"',
  'echo "unterminated',
  '',
  'sed -i s/a/b/ f',
  'awk \'{print > "x"}\' f',
];

describe('read-only Bash classifier', () => {
  it(`has a corpus of at least 60 commands (${READ_ONLY.length + NOT_READ_ONLY.length})`, () => {
    expect(READ_ONLY.length + NOT_READ_ONLY.length).toBeGreaterThanOrEqual(60);
  });
  it.each(READ_ONLY)('read-only: %s', (cmd) => {
    expect(isReadOnlyBashCommand(cmd)).toBe(true);
  });
  it.each(NOT_READ_ONLY)('not read-only: %s', (cmd) => {
    expect(isReadOnlyBashCommand(cmd)).toBe(false);
  });
  it('the Bash tool is concurrency-safe exactly for read-only, foreground commands', () => {
    expect(BashTool.isConcurrencySafe({ command: 'sleep 1' } as never)).toBe(true);
    expect(BashTool.isConcurrencySafe({ command: 'sleep 1 && echo 1 > f' } as never)).toBe(false);
    expect(BashTool.isConcurrencySafe({ command: 'sleep 1', run_in_background: true } as never)).toBe(false);
  });
});
