// The UI's keys, through one router instead of one Ink listener per component. Ink's useInput
// subscribes in a passive effect, after the frame: a key read before that effect ran went to the
// handlers of the frame before, so the second of two permission questions, opened the instant the
// first was answered, lost the key typed for it in the same read ("yy"). Here a component's
// handler is registered while React commits (a layout effect) and is always its latest render's.
import { type Key, useInput } from 'ink';
import { createContext, type ReactNode, useContext, useLayoutEffect, useMemo, useRef } from 'react';

export type KeyHandler = (input: string, key: Key) => void;

interface Entry {
  handler: { current: KeyHandler };
  /** It takes one key at a time (a dialog): text read in one go is given to it key by key. */
  singleKeys: boolean;
}

/** At most this many characters read at once are fast typing, split key by key for a dialog; more are a paste. */
const TYPED_AT_ONCE = 8;

const NO_KEY: Key = {
  upArrow: false,
  downArrow: false,
  leftArrow: false,
  rightArrow: false,
  pageDown: false,
  pageUp: false,
  home: false,
  end: false,
  return: false,
  escape: false,
  ctrl: false,
  shift: false,
  tab: false,
  backspace: false,
  delete: false,
  meta: false,
  super: false,
  hyper: false,
  capsLock: false,
  numLock: false,
};

/** One character typed, as Ink would have told it alone. */
function oneKey(ch: string): [string, Key] {
  if (ch === '\r') return ['', { ...NO_KEY, return: true }];
  if (ch === '\t') return ['', { ...NO_KEY, tab: true }];
  if (ch === '\x7f' || ch === '\b') return ['', { ...NO_KEY, backspace: true }];
  return [ch, { ...NO_KEY, shift: /[A-Z]/.test(ch) }];
}

/** How long a key waits for React to draw what the key before it did, when that key drew nothing. */
const DRAWN_WITHIN_MS = 30;

/**
 * The handlers of the mounted components, called in the order they were mounted, as Ink's are.
 * Ink hands over the keys of one read in one go, before React has drawn what the first of them
 * did: here a key that follows another waits until React has committed (a question answered, the
 * next one or a picker mounted, their handlers registered), or DRAWN_WITHIN_MS when nothing was.
 */
export class KeyRouter {
  private readonly entries: Entry[] = [];
  private readonly queue: Array<[string, Key]> = [];
  private draining = false;
  private waiting: ReturnType<typeof setTimeout> | undefined;

  add(entry: Entry): () => void {
    this.entries.push(entry);
    return () => {
      const at = this.entries.indexOf(entry);
      if (at >= 0) this.entries.splice(at, 1);
    };
  }

  dispatch(input: string, key: Key): void {
    const typed =
      input.length > 1 &&
      input.length <= TYPED_AT_ONCE &&
      /^[\x20-\x7e\r\t\x7f]+$/.test(input) &&
      !key.ctrl &&
      !key.meta &&
      this.entries.some((e) => e.singleKeys);
    if (typed) for (const ch of input) this.queue.push(oneKey(ch));
    else this.queue.push([input, key]);
    if (!this.draining) this.drain();
  }

  /** React committed a frame (a useKeys component's layout effect): the next key may go. */
  drawn(): void {
    if (!this.waiting) return;
    clearTimeout(this.waiting);
    this.waiting = undefined;
    // Not inside React's commit: after it.
    queueMicrotask(() => this.drain());
  }

  private drain(): void {
    const next = this.queue.shift();
    if (!next) {
      this.draining = false;
      return;
    }
    this.draining = true;
    this.send(...next);
    // Keys that come meanwhile (the rest of this read) queue behind it.
    this.waiting = setTimeout(() => {
      this.waiting = undefined;
      this.drain();
    }, DRAWN_WITHIN_MS);
  }

  private send(input: string, key: Key): void {
    // One unmounted by an earlier handler of this same key (a question answered) does not get it.
    for (const e of [...this.entries]) if (this.entries.includes(e)) e.handler.current(input, key);
  }
}

const RouterContext = createContext<KeyRouter | null>(null);

/** The one Ink input listener of the tree below it, subscribed once, when the UI mounts. onKey: told of every read. */
export function KeyRoot({ children, onKey }: { children: ReactNode; onKey?: () => void }) {
  const router = useMemo(() => new KeyRouter(), []);
  const dispatch = useMemo(
    () => (input: string, key: Key) => {
      onKey?.();
      router.dispatch(input, key);
    },
    [router, onKey],
  );
  useInput(dispatch);
  return <RouterContext.Provider value={router}>{children}</RouterContext.Provider>;
}

/**
 * useInput's replacement. singleKeys: a dialog, which takes one key at a time. Outside a KeyRoot
 * (a component drawn alone in a test) it is Ink's useInput.
 */
export function useKeys(handler: KeyHandler, opts: { isActive?: boolean; singleKeys?: boolean } = {}): void {
  const router = useContext(RouterContext);
  const active = opts.isActive !== false;
  const singleKeys = opts.singleKeys === true;
  const ref = useRef(handler);
  useLayoutEffect(() => {
    ref.current = handler;
    router?.drawn();
  });
  useLayoutEffect(
    () => (router && active ? router.add({ handler: ref, singleKeys }) : undefined),
    [router, active, singleKeys],
  );
  useInput(handler, { isActive: !router && active });
}
