// Bracketed paste: the UI asks the terminal to wrap what is pasted in ESC[200~ … ESC[201~, and
// Ink is given a stdin that turns each such block into one chunk of text, its line ends as \n
// (so a pasted newline never sends the prompt) and without the markers or escape characters;
// the editor then takes it as one paste (a long one collapses to a placeholder). Text outside
// the markers goes through as read. Terminals without the mode paste as before.

export const ENABLE = '\x1b[?2004h';
export const DISABLE = '\x1b[?2004l';
const START = '\x1b[200~';
const END = '\x1b[201~';

/** Splits what stdin reads into chunks for Ink: each bracketed paste whole, as one. */
export class PasteFilter {
  /** Inside a paste: what has come of it so far. */
  private paste: string | undefined;

  /** A chunk read from the terminal; returns the chunks to hand on, in order. */
  push(chunk: string): string[] {
    const out: string[] = [];
    let rest = chunk;
    while (rest) {
      if (this.paste === undefined) {
        const at = rest.indexOf(START);
        if (at < 0) {
          out.push(rest);
          break;
        }
        if (at > 0) out.push(rest.slice(0, at));
        this.paste = '';
        rest = rest.slice(at + START.length);
      } else {
        const text = this.paste + rest;
        const at = text.indexOf(END);
        if (at < 0) {
          this.paste = text;
          break;
        }
        out.push(clean(text.slice(0, at)));
        this.paste = undefined;
        rest = text.slice(at + END.length);
      }
    }
    return out.filter((c) => c !== '');
  }

  /** A paste has begun and its end has not come yet. */
  get pasting(): boolean {
    return this.paste !== undefined;
  }
}

/** The paste's line ends as the editor keeps them, and no escape characters (they would be keys). */
function clean(text: string): string {
  return text.replace(/\r\n?/g, '\n').replaceAll('\x1b', '');
}

/**
 * `stdin` as Ink reads it (its `read()`), each bracketed paste handed on as one chunk; everything
 * else is stdin's own.
 */
export function pasteAwareStdin(stdin: NodeJS.ReadStream): NodeJS.ReadStream {
  const filter = new PasteFilter();
  const ready: string[] = [];
  const read = (): string | null => {
    for (;;) {
      if (ready.length) return ready.shift()!;
      const chunk = stdin.read() as string | Buffer | null;
      if (chunk === null) return null;
      ready.push(...filter.push(typeof chunk === 'string' ? chunk : chunk.toString('utf8')));
    }
  };
  return new Proxy(stdin, {
    get(target, prop) {
      if (prop === 'read') return read;
      const value = Reflect.get(target, prop, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}
