// The git and pull-request rules of the Bash tool's description (tools/bash.ts). They live in the
// tool's description, where the model reads them as it reaches for git, rather than in the system
// prompt. Our own words; docs/prompt.md lists them with the system prompt's topics.

export const BASH_GIT_RULES = `Git and pull requests:
- Commit only when the user asks you to. Likewise push, open a pull request or merge only on request.
- Never change the git configuration (git config, user name or email, hooks path) unless the user explicitly asks for it.
- Never skip or disable hooks or signing (--no-verify, --no-gpg-sign, -c core.hooksPath=...). If a pre-commit hook fails or changes files, fix the cause or take in its changes, then make a new commit; do not amend a commit that did not happen.
- Never force-push to main or master; warn the user if they ask for it. Elsewhere, force-push only when the user asks.
- Avoid commands that throw work away (reset --hard, checkout -- ., clean -f, branch -D) unless the user asked for exactly that.
- Before committing, look at what will go in: git status, git diff (staged and unstaged), and git log for the repository's message style. Stage files by name rather than everything at once, and leave out files that likely hold secrets (.env, credential files, private keys); warn the user if they ask to commit one.
- Draw the commit message from the diff itself: say briefly what changed and why, in the repository's style. Pass it with a here-document so its lines survive the shell.
- For a pull request, read every commit on the branch since it left the base branch (git log and git diff base...HEAD), not just the latest, and write the title and description from all of them. Use the gh CLI for GitHub work: pull requests, issues, checks, the API.
- Interactive git commands (rebase -i, add -i, commit without -m) need a terminal this tool does not give them; use their non-interactive forms.
- Nothing to commit means nothing to do: do not make an empty commit.`;
