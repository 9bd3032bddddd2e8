// The prompt's keys beyond plain editing: Up/Down through this project's history (past the
// editor's first or last line), Ctrl+R's search, large pastes collapsed to a placeholder and put
// back whole on Enter. Plain TypeScript over the editor's pure functions, so it is tested without
// Ink; the App holds one and redraws after each key.
import { atQuery, type CommandEntry, completeAt, matchCommands, matchFiles, slashQuery } from './complete.js';
import { EMPTY, type EditorKey, type EditorState, editorKey } from './editor.js';
import { type Browse, findOlder, type Search, step } from './history.js';
import { expandPastes, isLargePaste, normalise, placeholder, placeholderBefore } from './paste.js';

export interface History {
  entries(): string[];
  add(text: string): void;
}

/** A chunk that comes this soon after a paste's is the same paste, split by the terminal. */
const PASTE_JOIN_MS = 60;

export interface KeyResult {
  /** Enter: what the transcript shows (placeholders kept) and what is sent (pastes put back). */
  submit?: { display: string; text: string };
  /** The key meant nothing here. */
  unhandled?: boolean;
}

/** What the menu under the prompt offers now. */
export type Suggestions = { kind: 'slash'; items: CommandEntry[] } | { kind: 'at'; start: number; items: string[] };

export class PromptState {
  editor: EditorState = EMPTY;
  /** The chosen row of the completion menu. */
  menuIndex = 0;
  /** Esc closed the menu for this text; it opens again when the text changes. */
  private dismissed: string | null = null;
  browse: Browse | null = null;
  search: Search | null = null;
  private readonly pastes = new Map<number, string>();
  private lastPaste: { n: number; at: number; end: number } | undefined;

  constructor(private readonly history?: History) {}

  private entries(): string[] {
    return this.history?.entries() ?? [];
  }

  clear(): void {
    this.editor = EMPTY;
    this.browse = null;
  }

  key(input: string, key: EditorKey & { ctrl?: boolean }, now = Date.now()): KeyResult {
    const before = this.editor.text;
    const r = this.editKey(input, key, now);
    if (this.editor.text !== before) this.menuIndex = 0;
    return r;
  }

  private editKey(input: string, key: EditorKey & { ctrl?: boolean }, now: number): KeyResult {
    if (this.search) return this.searchKey(input, key);
    if (key.ctrl && input === 'r') {
      const entries = this.entries();
      this.search = { query: '', match: entries.length - 1, draft: this.editor.text };
      return {};
    }
    const text = !key.ctrl && !key.meta && !key.return && input.length > 1 ? input : '';
    if (text && this.joinPaste(text, now)) return {};
    if (text && isLargePaste(text)) {
      const n = this.pastes.size + 1;
      const body = normalise(text);
      this.pastes.set(n, body);
      this.insert(placeholder(n, body));
      this.lastPaste = { n, at: now, end: this.editor.cursor };
      return {};
    }
    this.lastPaste = undefined;
    if (key.backspace || (key.delete && !key.ctrl)) {
      const p = placeholderBefore(this.editor.text, this.editor.cursor);
      if (p) {
        const { text: t, cursor } = this.editor;
        this.editor = { text: t.slice(0, p.start) + t.slice(cursor), cursor: p.start };
        return {};
      }
    }
    const r = editorKey(this.editor, input, key);
    if (r.unhandled && (key.upArrow || key.downArrow)) {
      const moved = step(this.entries(), this.browse, this.editor.text, key.upArrow ? -1 : 1);
      if (!moved) return {};
      this.browse = moved.browse;
      this.editor = { text: moved.text, cursor: moved.text.length };
      return {};
    }
    this.editor = r.state;
    if (r.submit === undefined) return r.unhandled ? { unhandled: true } : {};
    this.browse = null;
    const sent = expandPastes(r.submit, this.pastes);
    if (sent.trim()) this.history?.add(sent);
    return { submit: { display: r.submit, text: sent } };
  }

  private insert(t: string): void {
    const { text, cursor } = this.editor;
    this.editor = { text: text.slice(0, cursor) + t + text.slice(cursor), cursor: cursor + t.length };
  }

  /** The rest of a paste the terminal delivered in pieces joins its placeholder. */
  private joinPaste(text: string, now: number): boolean {
    const last = this.lastPaste;
    if (!last || now - last.at > PASTE_JOIN_MS || this.editor.cursor !== last.end) return false;
    const body = (this.pastes.get(last.n) ?? '') + normalise(text);
    this.pastes.set(last.n, body);
    const p = placeholderBefore(this.editor.text, this.editor.cursor);
    if (!p || p.n !== last.n) return false;
    const { text: t, cursor } = this.editor;
    const label = placeholder(last.n, body);
    this.editor = { text: t.slice(0, p.start) + label + t.slice(cursor), cursor: p.start + label.length };
    this.lastPaste = { n: last.n, at: now, end: this.editor.cursor };
    return true;
  }

  private searchKey(input: string, key: EditorKey & { ctrl?: boolean }): KeyResult {
    const s = this.search!;
    const entries = this.entries();
    if (key.escape || (key.ctrl && (input === 'c' || input === 'g'))) {
      this.search = null;
      this.editor = { text: s.draft, cursor: s.draft.length };
      return {};
    }
    if (key.return || key.tab || key.rightArrow || key.leftArrow) {
      this.search = null;
      const text = s.match >= 0 ? entries[s.match] : s.draft;
      this.editor = { text, cursor: text.length };
      return {};
    }
    if (key.ctrl && input === 'r') {
      const next = s.match > 0 ? findOlder(entries, s.query, s.match - 1) : -1;
      if (next >= 0) this.search = { ...s, match: next };
      return {};
    }
    let query = s.query;
    if (key.backspace || key.delete) query = query.slice(0, -1);
    else if (!key.ctrl && !key.meta && input) query += normalise(input);
    else return {};
    this.search = { ...s, query, match: findOlder(entries, query, entries.length - 1) };
    return {};
  }

  /** The completion menu for the prompt as it is: `/` commands, `@` files. */
  suggestions(commands: CommandEntry[], files: string[] | undefined): Suggestions | undefined {
    if (this.search || this.dismissed === this.editor.text) return undefined;
    const slash = slashQuery(this.editor);
    if (slash !== undefined) {
      const items = matchCommands(commands, slash);
      // The command typed in full, alone in the list: nothing left to offer.
      if (!items.length || (items.length === 1 && items[0].name === slash)) return undefined;
      return { kind: 'slash', items };
    }
    const at = atQuery(this.editor);
    if (at && files) {
      const items = matchFiles(files, at.query);
      return items.length ? { kind: 'at', start: at.start, items } : undefined;
    }
    return undefined;
  }

  /**
   * A key while the menu is open: ↑/↓ choose, Tab completes, Enter completes (and runs a slash
   * command that takes no arguments), Esc closes. undefined: the key is not the menu's.
   */
  menuKey(s: Suggestions, key: EditorKey): KeyResult | undefined {
    const n = s.items.length;
    const i = Math.min(this.menuIndex, n - 1);
    if (key.upArrow) this.menuIndex = (i + n - 1) % n;
    else if (key.downArrow) this.menuIndex = (i + 1) % n;
    else if (key.escape) this.dismissed = this.editor.text;
    else if (key.tab || key.return) {
      this.menuIndex = 0;
      if (s.kind === 'at') {
        this.editor = completeAt(this.editor, s.start, s.items[i]);
        return {};
      }
      const c = s.items[i];
      const text = `/${c.name}${c.argumentHint || key.tab ? ' ' : ''}`;
      this.editor = { text, cursor: text.length };
      if (key.return && !c.argumentHint) return this.key('', { return: true });
      return {};
    } else return undefined;
    return {};
  }

  /** The entry Ctrl+R shows, if any. */
  searchMatch(): string | undefined {
    const s = this.search;
    return s && s.match >= 0 ? this.entries()[s.match] : undefined;
  }
}
