// What the terminal UI needs from the session, injected by src/modes/terminal.ts (the UI bundle
// imports no session code that has state of its own) and swapped for fakes in component tests.
import type { PermissionMode } from '../permissions/modes.js';
import type { ColourLevel } from './colour.js';
import type { CommandEntry } from './complete.js';
import type { EditedFilesOf } from './diff.js';
import type { PickerItem } from './components/Picker.js';

export interface StatusInfo {
  model: string;
  mode: PermissionMode;
  /** The model's context window, in tokens. */
  contextWindow: number;
  /** The git branch of the working folder, if it is in a repository. */
  branch?: string;
}

export interface TuiDeps {
  /** The first line: version, model, folder. */
  banner: string;
  /**
   * The session resumes an earlier one (--resume, --continue, /resume): its conversation is drawn
   * once the session is up (Tui.replay), above anything typed meanwhile.
   */
  resuming?: boolean;
  /** How many colours to draw with (0: none). */
  colour: ColourLevel;
  /** The terminal has the kitty keyboard protocol: turn it on (src/tui/kittyKeys.ts). */
  kittyKeyboard?: boolean;
  /** Queue a prompt (or a slash command) for the session. */
  submit(text: string): void;
  /** Abort the running turn and its tools; false when nothing runs. */
  interrupt(): boolean;
  status(): StatusInfo;
  /** The modes Shift+Tab cycles through, in order (bypassPermissions only when allowed). */
  modes: PermissionMode[];
  setMode(mode: PermissionMode): void;
  /** This project's prompt history (Up/Down, Ctrl+R), read when first needed. */
  history?: { entries(): string[]; add(text: string): void };
  /** The models `/model` alone offers to pick from (value: what `/model <value>` takes). */
  models?(): PickerItem[];
  /** `/resume`: this project's saved sessions, newest first. */
  sessions?(): Promise<Array<{ sessionId: string; title?: string; firstPrompt: string; modifiedMs: number }>>;
  /** `/resume`'s choice: once the UI has left, this session ends and the chosen one starts. */
  resumeSession?(sessionId: string): void;
  /** The slash commands the `/` menu offers (built-in, project and user commands, plugins'). */
  commands?(): CommandEntry[];
  /** The project's files for `@` completion (not ignored by .gitignore), listed when first needed. */
  files?(): Promise<string[]>;
  /**
   * `!command`: run it in the working folder (stdout and stderr as one stream), then send the
   * command and its output to the model as the reference records it. Resolves with the output.
   */
  shell?(command: string): Promise<{ output: string; exitCode: number | null }>;
  /**
   * The files a call declares it edits (an `edit` tool's `access().paths`, tools/tool.ts): such
   * calls are drawn as diffs. Absent, or undefined for a call: drawn as plain results.
   */
  editedFiles?: EditedFilesOf;
  /** A key was typed (any key, whatever it does): telemetry's typing time. */
  keyTyped?(): void;
}
