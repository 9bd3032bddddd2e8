// The terminal UI: settled rows go to <Static> (written once, never redrawn); below them the live
// part: running tool rows, the streaming answer, the todo list, a dialog or the prompt editor, and
// the status line. Keys that act on the session (Esc, Shift+Tab, Ctrl+C, Ctrl+D) are handled here.
import { basename } from 'node:path';
import { Box, Static, Text, useInput } from 'ink';
import { useMemo, useState, useSyncExternalStore } from 'react';
import { useRefState } from './useRefState.js';
import type { AskHostAnswer } from '../loop/toolPipeline.js';
import { DiffView } from './components/DiffView.js';
import { ItemView } from './components/ItemView.js';
import { Markdown } from './markdown/Markdown.js';
import { PermissionDialog } from './components/PermissionDialog.js';
import { PromptInput } from './components/PromptInput.js';
import { PlanDialog, QuestionsDialog } from './components/QuestionDialog.js';
import { StatusLine } from './components/StatusLine.js';
import { TodoList } from './components/TodoList.js';
import { ThinkingView } from './components/ThinkingView.js';
import { ToolList } from './components/ToolList.js';
import type { TuiDeps } from './deps.js';
import { diffSummary, previewDiff } from './diff.js';
import { EMPTY, editorKey } from './editor.js';
import { fileTextOrNull } from './fileText.js';
import type { Dialog, TuiStore } from './store.js';
import { useTheme } from './theme.js';

/** The rows of an edit's diff a permission question shows (a long one is cut, with a count). */
const PREVIEW_DIFF_ROWS = 20;

export function App({ store, deps, onExit }: { store: TuiStore; deps: TuiDeps; onExit: () => void }) {
  const theme = useTheme();
  const state = useSyncExternalStore(store.subscribe, store.snapshot);
  const [getEditor, setEditor] = useRefState(EMPTY);
  const [getArmed, setCtrlCArmed] = useRefState(false);
  const [, setModeTick] = useState(0);
  /** Ctrl+O's list of tool calls: the chosen row, or null when it is closed. */
  const [getList, setList] = useRefState<number | null>(null);
  const status = deps.status();
  const dialog = state.dialogs[0];

  const cycleMode = () => {
    const i = deps.modes.indexOf(status.mode);
    deps.setMode(deps.modes[(i + 1) % deps.modes.length]);
    setModeTick((n) => n + 1);
  };

  useInput((ch, key) => {
    const editor = getEditor();
    if (key.tab && key.shift) return cycleMode();
    if (key.ctrl && ch === 'c') {
      if (store.busy || dialog) {
        setCtrlCArmed(false);
        if (!deps.interrupt()) store.closeDialogs();
        return;
      }
      if (editor.text) {
        setCtrlCArmed(false);
        return setEditor(EMPTY);
      }
      if (getArmed()) return onExit();
      return setCtrlCArmed(true);
    }
    if (key.escape && getList() !== null && !dialog) return setList(null);
    if (key.escape) {
      if (store.busy || dialog) {
        if (!deps.interrupt()) store.closeDialogs();
      }
      return;
    }
    if (dialog) return; // the dialog reads its own keys
    const list = getList();
    if (key.ctrl && ch === 'o') return setList(list === null ? Math.max(0, store.expandable().length - 1) : null);
    if (list !== null) {
      const tools = store.expandable();
      if (key.upArrow) return setList(Math.max(0, list - 1));
      if (key.downArrow) return setList(Math.min(tools.length - 1, list + 1));
      if (key.return && tools[list]) store.expand(tools[list].id);
      if (key.return || key.escape || ch === 'q') return setList(null);
      return;
    }
    if (key.ctrl && ch === 'd') {
      if (!editor.text) onExit();
      return;
    }
    setCtrlCArmed(false);
    const r = editorKey(editor, ch, key);
    if (r.submit !== undefined) {
      const text = r.submit.trim();
      if (text === '/exit' || text === '/quit') return onExit();
      if (text) {
        store.submitted(r.submit);
        deps.submit(r.submit);
      }
    }
    setEditor(r.state);
  });

  const live = state.items.slice(state.committed);
  return (
    <>
      <Static items={state.items.slice(0, state.committed)}>{(item) => <ItemView key={item.id} item={item} />}</Static>
      <Box flexDirection="column">
        {live.map((item) => (
          <ItemView key={item.id} item={item} />
        ))}
        {state.thinking && !state.streaming ? <ThinkingView text={state.thinking} live /> : null}
        {state.streaming ? (
          <Box marginTop={1}>
            <Markdown text={state.streaming} />
          </Box>
        ) : null}
        {state.todos?.length ? <TodoList todos={state.todos} /> : null}
        {dialog ? (
          <DialogView key={dialog.id} dialog={dialog} />
        ) : getList() !== null ? (
          <ToolList tools={store.expandable()} selected={getList()!} />
        ) : (
          <Box marginTop={1} flexDirection="column">
            {store.busy ? <Text color={theme.paint('yellow')}>working… (esc to interrupt)</Text> : null}
            <PromptInput state={getEditor()} />
          </Box>
        )}
        <StatusLine
          status={status}
          contextTokens={state.contextTokens}
          costUsd={state.costUsd}
          hint={getArmed() ? 'press Ctrl+C again to exit' : undefined}
        />
      </Box>
    </>
  );
}

function DialogView({ dialog }: { dialog: Dialog }) {
  const { req } = dialog;
  const input = (req.input && typeof req.input === 'object' ? req.input : {}) as Record<string, unknown>;
  const answer = (a: AskHostAnswer) => dialog.resolve(a);
  if (req.tool_name === 'AskUserQuestion' && Array.isArray(input.questions))
    return <QuestionsDialog input={input} onAnswer={answer} />;
  if (req.tool_name === 'ExitPlanMode' && typeof input.plan === 'string')
    return <PlanDialog input={input} onAnswer={answer} />;
  return (
    <PermissionDialog req={req} onAnswer={answer}>
      <EditPreview name={req.tool_name} input={req.input} />
    </PermissionDialog>
  );
}

/** What an Edit/Write/MultiEdit would change, as a diff inside its permission question. */
function EditPreview({ name, input }: { name: string; input: unknown }) {
  const theme = useTheme();
  const diff = useMemo(() => previewDiff(name, input, fileTextOrNull), [name, input]);
  if (!diff) return null;
  return (
    <Box flexDirection="column" marginY={1}>
      <Text dimColor={theme.dim}>{diffSummary(diff, basename)}</Text>
      <DiffView diff={diff} max={PREVIEW_DIFF_ROWS} />
    </Box>
  );
}
