// Reshapes the sandbox runtime's Linux wrap so a command joins the session's network namespace
// (src/sandbox/sessionNetwork.ts) instead of making its own: the same bubblewrap options, less
// `--unshare-net`, behind `nsenter` into the session's namespaces; and the command started by
// apply-seccomp directly, without the two shells and two socat bridges the runtime starts inside
// every sandbox. Anything it does not recognise word for word is left as the runtime made it
// (undefined): the caller then runs the runtime's own wrap, a full sandbox that is only slower.

/** bubblewrap 0.8's options and how many arguments each takes (`bwrap --help`). */
const BWRAP_ARITY: Record<string, number> = {
  '--args': 1,
  '--unshare-all': 0,
  '--share-net': 0,
  '--unshare-user': 0,
  '--unshare-user-try': 0,
  '--unshare-ipc': 0,
  '--unshare-pid': 0,
  '--unshare-net': 0,
  '--unshare-uts': 0,
  '--unshare-cgroup': 0,
  '--unshare-cgroup-try': 0,
  '--userns': 1,
  '--userns2': 1,
  '--disable-userns': 0,
  '--assert-userns-disabled': 0,
  '--pidns': 1,
  '--uid': 1,
  '--gid': 1,
  '--hostname': 1,
  '--chdir': 1,
  '--clearenv': 0,
  '--setenv': 2,
  '--unsetenv': 1,
  '--lock-file': 1,
  '--sync-fd': 1,
  '--bind': 2,
  '--bind-try': 2,
  '--dev-bind': 2,
  '--dev-bind-try': 2,
  '--ro-bind': 2,
  '--ro-bind-try': 2,
  '--bind-fd': 2,
  '--ro-bind-fd': 2,
  '--remount-ro': 1,
  '--exec-label': 1,
  '--file-label': 1,
  '--proc': 1,
  '--dev': 1,
  '--tmpfs': 1,
  '--mqueue': 1,
  '--dir': 1,
  '--file': 2,
  '--bind-data': 2,
  '--ro-bind-data': 2,
  '--symlink': 2,
  '--seccomp': 1,
  '--add-seccomp-fd': 1,
  '--block-fd': 1,
  '--userns-block-fd': 1,
  '--info-fd': 1,
  '--json-status-fd': 1,
  '--new-session': 0,
  '--die-with-parent': 0,
  '--as-pid-1': 0,
  '--cap-add': 1,
  '--cap-drop': 1,
  '--perms': 1,
  '--size': 1,
  '--chmod': 2,
};

/** A word as the runtime quotes it: bare when every character is plain, else in single quotes. */
function quoteWord(word: string): string {
  if (/^[A-Za-z0-9_./:@+,-][A-Za-z0-9_./:=@+,-]*$/.test(word)) return word;
  return `'${word.replace(/'/g, `'"'"'`)}'`;
}

export function quote(words: string[]): string {
  return words.map(quoteWord).join(' ');
}

/**
 * The words of `text`, read in the runtime's quoting only (plain characters, single quotes, and
 * `"'"` for a quote: nothing a shell would expand), and only if they quote back to exactly `text`,
 * so they are the words bash would see.
 */
export function shellWords(text: string): string[] | undefined {
  const words: string[] = [];
  let i = 0;
  while (i < text.length) {
    let word = '';
    const from = i;
    while (i < text.length && text[i] !== ' ') {
      if (text[i] === "'") {
        const end = text.indexOf("'", i + 1);
        if (end < 0) return undefined;
        word += text.slice(i + 1, end);
        i = end + 1;
      } else if (text.startsWith(`"'"`, i)) {
        word += "'";
        i += 3;
      } else if (/[A-Za-z0-9_./:=@+,-]/.test(text[i])) {
        word += text[i++];
      } else {
        return undefined;
      }
    }
    if (i === from) return undefined;
    words.push(word);
    i++;
  }
  return quote(words) === text ? words : undefined;
}

export interface ReshapeOptions {
  /** The words that enter the session's namespaces (`nsenter …`), ending with `--`. */
  enter: string[];
  /** The runner to run instead (it need not wait for per-command bridges). */
  runner: string;
  /** The sandbox's uid/gid, when the entered namespace would otherwise make it root (host uid ≠ 0). */
  ids?: { uid: number; gid: number };
}

/** The parts of a runtime wrap this module knows how to rearrange. */
export interface LinuxWrap {
  /** The args-file launcher before bwrap (`/bin/sh -c 'exec 9<"$1" …' srt-args FILE`), or nothing. */
  launcher: string[];
  bwrap: string;
  /** bubblewrap's options, less `--unshare-net`. */
  options: string[];
  shell: string;
  /** How the command is started: `[apply-seccomp]`, or `[]` without the seccomp helper. */
  start: string[];
}

/**
 * Reads the runtime's wrap (`bwrap … --unshare-net … -- bash -c '<socat bridges; apply-seccomp bash
 * -c RUNNER>'`, possibly behind the `/bin/sh -c 'exec 9<"$1" …' srt-args FILE bwrap …` launcher it
 * uses when the options go through a file); undefined when its shape is not exactly the one known.
 */
export function readLinuxWrap(text: string, wrappedRunner: string): LinuxWrap | undefined {
  const words = shellWords(text);
  if (!words) return undefined;
  let at = 0;
  if (words[0] === '/bin/sh' && words[1] === '-c' && words[3] === 'srt-args') at = 5;
  if (!/(^|\/)bwrap$/.test(words[at] ?? '')) return undefined;
  const options: string[] = [];
  let i = at + 1;
  let unsharedNet = false;
  while (i < words.length && words[i] !== '--') {
    const arity = BWRAP_ARITY[words[i]];
    if (arity === undefined || i + arity >= words.length) return undefined;
    if (words[i] === '--unshare-net') unsharedNet = true;
    else options.push(...words.slice(i, i + arity + 1));
    i += arity + 1;
  }
  // The per-command network namespace is what gets replaced; without one there is nothing to do.
  if (!unsharedNet || words[i] !== '--') return undefined;
  const command = words.slice(i + 1);
  if (command.length !== 3 || command[1] !== '-c') return undefined;
  const start = seccompStart(command[2], command[0], wrappedRunner);
  if (!start) return undefined;
  return { launcher: words.slice(0, at), bwrap: words[at], options, shell: command[0], start };
}

/**
 * The words of the wrap as `[launcher] nsenter … -- bwrap <the same options, less --unshare-net> -- apply-seccomp
 * SHELL -c RUNNER`: into the session's network namespace, one shell, no bridges of its own.
 */
export function reshapeLinuxWrap(w: LinuxWrap, o: ReshapeOptions): string[] {
  const ids = o.ids ? ['--uid', String(o.ids.uid), '--gid', String(o.ids.gid)] : [];
  return [...w.launcher, ...o.enter, w.bwrap, ...ids, ...w.options, '--', ...w.start, w.shell, '-c', o.runner];
}

/**
 * From the runtime's inner command (`SHELL -c '<socat …&\nsocat …&\ntrap …\nLAST>'`), how the
 * command is started: `[apply-seccomp]` when LAST is `apply-seccomp SHELL -c RUNNER`, `[]` when it
 * is `eval RUNNER` (no seccomp helper: allowAllUnixSockets), else undefined.
 */
function seccompStart(inner: string, shell: string, runner: string): string[] | undefined {
  const outer = shellWords(inner);
  if (outer?.length !== 3 || outer[0] !== shell || outer[1] !== '-c') return undefined;
  const lines = outer[2].split('\n');
  if (lines.length < 2) return undefined;
  const bridges = lines.slice(0, -1);
  if (
    !bridges.every(
      (l) =>
        /(^|[/'])socat'? TCP-LISTEN:\d+,fork,reuseaddr UNIX-CONNECT:\S+ >\/dev\/null 2>&1 &$/.test(l) ||
        l.startsWith('trap '),
    )
  )
    return undefined;
  // The last line may carry the runner with newlines; it is everything after the bridges.
  const last = shellWords(outer[2].slice(bridges.join('\n').length + 1));
  if (!last) return undefined;
  if (last.length === 2 && last[0] === 'eval' && last[1] === runner) return [];
  if (
    last.length === 4 &&
    /(^|\/)apply-seccomp$/.test(last[0]) &&
    last[1] === shell &&
    last[2] === '-c' &&
    last[3] === runner
  )
    return [last[0]];
  return undefined;
}
