// The prompt's keys beyond plain editing: Up/Down through this project's history (past the
// editor's first or last line), Ctrl+R's search, large pastes collapsed to a placeholder and put
// back whole on Enter. Plain TypeScript over the editor's pure functions, so it is tested without
// Ink; the App holds one and redraws after each key.
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

export class PromptState {
  editor: EditorState = EMPTY;
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

  /** The entry Ctrl+R shows, if any. */
  searchMatch(): string | undefined {
    const s = this.search;
    return s && s.match >= 0 ? this.entries()[s.match] : undefined;
  }
}
