// The terminal UI: settled rows go to <Static> (written once, never redrawn); below them the live
// part: running tool rows, the streaming answer, the todo list, a dialog or the prompt editor, and
// the status line. Keys that act on the session (Esc, Shift+Tab, Ctrl+C, Ctrl+D) are handled here.
import { basename } from 'node:path';
import { Box, Static, Text } from 'ink';
import { useKeys } from './keys.js';
import { useEffect, useMemo, useRef, useState, useSyncExternalStore } from 'react';
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
import { TaskList, TaskRows } from './components/TaskRows.js';
import { ThinkingView } from './components/ThinkingView.js';
import { ToolList } from './components/ToolList.js';
import type { TuiDeps } from './deps.js';
import { diffSummary, type EditedFilesOf, previewDiff } from './diff.js';
import { PromptState, type Suggestions } from './prompt.js';
import { atQuery, slashQuery } from './complete.js';
import { CompletionMenu } from './components/CompletionMenu.js';
import { ElicitationForm } from './components/ElicitationForm.js';
import { Picker, type PickerItem, sessionItems } from './components/Picker.js';
import { fileTextOrNull } from './fileText.js';
import { oneLine } from './format.js';
import type { Dialog, TuiStore } from './store.js';
import { useTheme } from './theme.js';

/** The rows of an edit's diff a permission question shows (a long one is cut, with a count). */
const PREVIEW_DIFF_ROWS = 20;

export function App({ store, deps, onExit }: { store: TuiStore; deps: TuiDeps; onExit: () => void }) {
  const theme = useTheme();
  const state = useSyncExternalStore(store.subscribe, store.snapshot);
  const prompt = useMemo(() => new PromptState(deps.history), [deps.history]);
  const [, redraw] = useState(0);
  const promptChanged = () => redraw((n) => n + 1);
  const [getArmed, setCtrlCArmed] = useRefState(false);
  const [, setModeTick] = useState(0);
  const [getPicker, setPicker] = useRefState<{
    title: string;
    items: PickerItem[];
    initial: number;
    onPick: (v: string | undefined) => void;
  } | null>(null);
  const [getTaskList, setTaskList] = useRefState(false);
  /** Ctrl+O's list of tool calls: the chosen row, or null when it is closed. */
  const [getList, setList] = useRefState<number | null>(null);
  const status = deps.status();
  const dialog = state.dialogs[0];
  const form = dialog ? undefined : state.forms[0];

  const cycleMode = () => {
    const i = deps.modes.indexOf(status.mode);
    deps.setMode(deps.modes[(i + 1) % deps.modes.length]);
    setModeTick((n) => n + 1);
  };

  /** The project's files for `@`, listed on the first `@` and kept. */
  const files = useRef<string[] | undefined>(undefined);
  const listing = useRef(false);
  const suggestions = (): Suggestions | undefined => {
    if (atQuery(prompt.editor) && !files.current && !listing.current && deps.files) {
      listing.current = true;
      deps.files().then(
        (f) => {
          files.current = f;
          promptChanged();
        },
        () => {
          files.current = [];
        },
      );
    }
    return prompt.suggestions(deps.commands?.() ?? [], files.current);
  };

  // The `/` menu follows the session's commands as they change (an MCP server that connects, or
  // announces prompts/list_changed): while a `/` command is being typed, they are looked at twice
  // a second and the menu is drawn again when they differ.
  const typingSlash = !dialog && slashQuery(prompt.editor) !== undefined;
  useEffect(() => {
    if (!typingSlash || !deps.commands) return;
    const names = () => (deps.commands?.() ?? []).map((c) => c.name).join('\n');
    let seen = names();
    const timer = setInterval(() => {
      const now = names();
      if (now !== seen) {
        seen = now;
        redraw((n) => n + 1);
      }
    }, 500);
    return () => clearInterval(timer);
  }, [typingSlash, deps]);

  const send = (sub: { display: string; text: string }) => {
    const text = sub.text.trim();
    if (text === '/exit' || text === '/quit') return onExit();
    if (!text) return;
    // /resume: a picker of this project's sessions; the chosen one replaces this session.
    if (text === '/resume' && deps.sessions && deps.resumeSession) {
      const resume = deps.resumeSession;
      void deps.sessions().then((list) => {
        if (!list.length) return store.note('No saved session in this project.');
        setPicker({
          title: `Resume a session of this project (${list.length})`,
          items: sessionItems(list),
          initial: 0,
          onPick: (v) => {
            setPicker(null);
            if (!v) return;
            resume(v);
            // One frame without the picker first, so the screen keeps no stale dialog.
            setTimeout(onExit, 50);
          },
        });
      });
      return;
    }
    // /model alone: a picker; the choice runs `/model <name>`.
    if (text === '/model' && deps.models) {
      const items = deps.models();
      const current = items.findIndex((m) => m.value === status.model || m.detail?.includes(status.model));
      return setPicker({
        title: `Model (now ${status.model})`,
        items,
        initial: Math.max(0, current),
        onPick: (v) => {
          setPicker(null);
          if (v) send({ display: `/model ${v}`, text: `/model ${v}` });
        },
      });
    }
    store.submitted(sub.display);
    // `!command`: run here, its output goes to the model with the command.
    if (text.startsWith('!') && deps.shell) {
      const command = text.slice(1).trim();
      const id = store.startLocal(`! ${command}`);
      void deps.shell(command).then(
        (r) => store.finishLocal(id, r.exitCode === 0, r.output),
        (e: Error) => store.finishLocal(id, false, e.message),
      );
      return;
    }
    deps.submit(sub.text);
  };

  useKeys((ch, key) => {
    if (getPicker() || form) return; // the picker and the form read their own keys
    const editor = prompt.editor;
    if (key.tab && key.shift) return cycleMode();
    // Ctrl+R's search reads its own keys (Esc and Ctrl+C leave it).
    if (prompt.search && !dialog && getList() === null) {
      prompt.key(ch, key);
      return promptChanged();
    }
    // The `/` or `@` menu takes ↑/↓, Tab, Enter and Esc while it is open.
    const menu = !dialog && getList() === null ? suggestions() : undefined;
    if (menu) {
      const r = prompt.menuKey(menu, key);
      if (r) {
        promptChanged();
        if (r.submit) send(r.submit);
        return;
      }
    }
    if (key.ctrl && ch === 'c') {
      if (store.busy || dialog) {
        setCtrlCArmed(false);
        if (!deps.interrupt()) store.closeDialogs();
        return;
      }
      if (editor.text) {
        setCtrlCArmed(false);
        prompt.clear();
        return promptChanged();
      }
      if (getArmed()) return onExit();
      return setCtrlCArmed(true);
    }
    if (key.escape && getList() !== null && !dialog) return setList(null);
    if (key.escape && getTaskList() && !dialog) return setTaskList(false);
    if (key.escape) {
      if (store.busy || dialog) {
        if (!deps.interrupt()) store.closeDialogs();
      }
      return;
    }
    if (dialog) return; // the dialog reads its own keys
    if (key.ctrl && ch === 't') return setTaskList(!getTaskList());
    if (getTaskList() && (key.escape || ch === 'q')) return setTaskList(false);
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
    const r = prompt.key(ch, key);
    promptChanged();
    if (r.submit) send(r.submit);
  });

  const live = state.items.slice(state.committed);
  const menu = !dialog && getList() === null ? suggestions() : undefined;
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
        <TaskRows tasks={state.tasks} />
        {state.todos?.length ? <TodoList todos={state.todos} /> : null}
        {getTaskList() && !dialog ? <TaskList tasks={state.tasks} /> : null}
        {dialog ? (
          <DialogView key={dialog.id} dialog={dialog} editedFiles={deps.editedFiles} />
        ) : form ? (
          <ElicitationForm key={form.id} payload={form.payload} onAnswer={form.resolve} />
        ) : getPicker() ? (
          <Picker {...getPicker()!} />
        ) : getList() !== null ? (
          <ToolList tools={store.expandable()} selected={getList()!} />
        ) : (
          <Box marginTop={1} flexDirection="column">
            {store.busy ? <Text color={theme.paint('yellow')}>working… (esc to interrupt)</Text> : null}
            {prompt.search ? (
              <SearchLine query={prompt.search.query} match={prompt.searchMatch()} />
            ) : (
              <PromptInput state={prompt.editor} />
            )}
            {menu ? <CompletionMenu s={menu} selected={prompt.menuIndex} /> : null}
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

/** Ctrl+R: the query and the newest prompt that contains it. */
function SearchLine({ query, match }: { query: string; match: string | undefined }) {
  const theme = useTheme();
  return (
    <Box flexDirection="column" borderStyle="round" borderColor={theme.paint('cyan')} paddingX={1}>
      <Text wrap="truncate-end">
        <Text color={theme.paint('cyan')}>search history: </Text>
        {query}
        <Text inverse> </Text>
      </Text>
      <Text wrap="truncate-end" dimColor={!match && theme.dim}>
        {match ? oneLine(match, 400) : query ? 'no match' : 'type to search · ctrl+r older · enter take · esc cancel'}
      </Text>
    </Box>
  );
}

function DialogView({ dialog, editedFiles }: { dialog: Dialog; editedFiles?: EditedFilesOf }) {
  const { req } = dialog;
  const input = (req.input && typeof req.input === 'object' ? req.input : {}) as Record<string, unknown>;
  const answer = (a: AskHostAnswer) => dialog.resolve(a);
  if (req.tool_name === 'AskUserQuestion' && Array.isArray(input.questions))
    return <QuestionsDialog input={input} onAnswer={answer} />;
  if (req.tool_name === 'ExitPlanMode' && typeof input.plan === 'string')
    return <PlanDialog input={input} onAnswer={answer} />;
  return (
    <PermissionDialog req={req} onAnswer={answer}>
      <EditPreview name={req.tool_name} input={req.input} editedFiles={editedFiles} />
    </PermissionDialog>
  );
}

/** What a file edit (a call of a tool of kind 'edit', to the files it declares) would change, as a diff inside its permission question. */
function EditPreview({ name, input, editedFiles }: { name: string; input: unknown; editedFiles?: EditedFilesOf }) {
  const theme = useTheme();
  const diff = useMemo(
    () => previewDiff(editedFiles?.(name, input), input, fileTextOrNull),
    [editedFiles, name, input],
  );
  if (!diff) return null;
  return (
    <Box flexDirection="column" marginY={1}>
      <Text dimColor={theme.dim}>{diffSummary(diff, basename)}</Text>
      <DiffView diff={diff} max={PREVIEW_DIFF_ROWS} />
    </Box>
  );
}
