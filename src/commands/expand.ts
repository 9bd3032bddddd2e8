// A command's template made into a prompt: `$ARGUMENTS` and `$1`…`$9` substituted, `!` shell lines
// (and inline !`cmd`) replaced by their output, and `@file` references followed by the files' text.
// The shell and the file reads are injected: the session checks them against its permissions.

export interface ExpandIO {
  /** Run one command line; its output, or a thrown Error naming why it did not run. */
  shell(command: string): Promise<string>;
  /** A referenced file's text; undefined when no such file exists (then `@x` stays plain text). Throws when refused. */
  readFile(path: string): Promise<string | undefined>;
}

/** Arguments split as a shell would split words: quotes group, backslashes escape. */
export function splitArgs(s: string): string[] {
  const out: string[] = [];
  let cur = '';
  let inWord = false;
  let quote: '"' | "'" | null = null;
  for (let i = 0; i < s.length; i++) {
    const c = s[i];
    if (quote) {
      if (c === quote) quote = null;
      else if (c === '\\' && quote === '"' && i + 1 < s.length) cur += s[++i];
      else cur += c;
    } else if (c === '"' || c === "'") {
      quote = c;
      inWord = true;
    } else if (c === '\\' && i + 1 < s.length) {
      cur += s[++i];
      inWord = true;
    } else if (/\s/.test(c)) {
      if (inWord) out.push(cur);
      cur = '';
      inWord = false;
    } else {
      cur += c;
      inWord = true;
    }
  }
  if (inWord) out.push(cur);
  return out;
}

/** `$ARGUMENTS` → all of them; `$1`… → each. Without either placeholder, the arguments are appended. */
export function substituteArgs(body: string, args: string): string {
  const words = splitArgs(args);
  const usesPlaceholders = /\$ARGUMENTS\b|\$\d/.test(body);
  const out = body
    .replace(/\$ARGUMENTS\b/g, () => args)
    .replace(/\$(\d)(?!\d)/g, (_, d: string) => words[Number(d) - 1] ?? '');
  if (!usesPlaceholders && args.trim()) return `${out}\n\nARGUMENTS: ${args.trim()}`;
  return out;
}

const SHELL_LINE = /^!(?!`)[ \t]*(\S.*)$/gm;
const SHELL_INLINE = /!`([^`\n]+)`/g;
const FILE_REF = /(^|\s)@([^\s`'"]+)/g;

async function replaceAsync(text: string, re: RegExp, fn: (...m: string[]) => Promise<string>): Promise<string> {
  const matches = [...text.matchAll(re)];
  let out = '';
  let at = 0;
  // In order, one at a time: shell lines may depend on each other's effects.
  for (const m of matches) {
    out += text.slice(at, m.index) + (await fn(...(m as unknown as string[])));
    at = m.index! + m[0].length;
  }
  return out + text.slice(at);
}

export async function expandTemplate(body: string, args: string, io: ExpandIO): Promise<string> {
  let text = substituteArgs(body, args);
  text = await replaceAsync(text, SHELL_LINE, async (_, cmd) => (await io.shell(cmd)).replace(/\s+$/, ''));
  text = await replaceAsync(text, SHELL_INLINE, async (_, cmd) => (await io.shell(cmd)).replace(/\s+$/, ''));
  const files = new Map<string, string>();
  for (const m of text.matchAll(FILE_REF)) {
    const path = m[2].replace(/[.,;:!?)]+$/, '');
    if (files.has(path)) continue;
    const content = await io.readFile(path);
    if (content !== undefined) files.set(path, content);
  }
  for (const [path, content] of files) text += `\n\n<file path="${path}">\n${content}\n</file>`;
  return text;
}
