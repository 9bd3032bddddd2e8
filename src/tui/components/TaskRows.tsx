// Subagents, background commands and teammates: one live row each while they run (what runs, its
// last action, its time), and Ctrl+T's list of all of them, finished ones too.
import { Box, Text } from 'ink';
import { useEffect, useState } from 'react';
import { oneLine } from '../format.js';
import type { TaskRow } from '../store.js';
import { useTheme } from '../theme.js';
import { Spinner } from './Spinner.js';

const KIND: Record<string, string> = {
  local_agent: 'agent',
  local_bash: 'shell',
  in_process_teammate: 'teammate',
  local_workflow: 'workflow',
};

/** Re-renders every `ms` while `on` (the rows' clocks). */
function useTick(on: boolean, ms = 1000): void {
  const [, set] = useState(0);
  useEffect(() => {
    if (!on) return;
    const t = setInterval(() => set((n) => n + 1), ms);
    return () => clearInterval(t);
  }, [on, ms]);
}

export function elapsed(t: TaskRow, now = Date.now()): string {
  const s = Math.max(0, Math.round(((t.endedMs ?? now) - t.startedMs) / 1000));
  return s < 60 ? `${s}s` : `${Math.floor(s / 60)}m ${s % 60}s`;
}

function Row({ t, live }: { t: TaskRow; live: boolean }) {
  const theme = useTheme();
  const mark =
    t.status === 'running' && t.idle ? (
      <Text dimColor={theme.dim}>◦</Text>
    ) : t.status === 'running' ? (
      <Spinner />
    ) : t.status === 'completed' ? (
      <Text color={theme.paint('green')}>✓</Text>
    ) : (
      <Text color={theme.paint('red')}>✗</Text>
    );
  return (
    <Text wrap="truncate-end">
      {mark} <Text color={theme.paint('magenta')}>{KIND[t.kind] ?? t.kind}</Text> {oneLine(t.description, 60)}
      <Text dimColor={theme.dim}>
        {' · '}
        {elapsed(t)}
        {t.background ? ' · background' : ''}
        {!live && t.status !== 'running' ? ` · ${t.status}` : ''}
        {t.status === 'running' && t.idle ? ' · idle' : ''}
        {t.lastAction ? ` · ${oneLine(t.lastAction, 80)}` : ''}
      </Text>
    </Text>
  );
}

/** The running ones, in the live area. */
export function TaskRows({ tasks }: { tasks: TaskRow[] }) {
  const theme = useTheme();
  const running = tasks.filter((t) => t.status === 'running');
  useTick(running.length > 0);
  if (!running.length) return null;
  return (
    <Box flexDirection="column" marginTop={1}>
      {running.slice(0, 5).map((t) => (
        <Row key={t.id} t={t} live />
      ))}
      {running.length > 5 ? <Text dimColor={theme.dim}> … {running.length - 5} more (ctrl+t)</Text> : null}
    </Box>
  );
}

/** Ctrl+T: every task of the session. */
export function TaskList({ tasks }: { tasks: TaskRow[] }) {
  const theme = useTheme();
  useTick(tasks.some((t) => t.status === 'running'));
  return (
    <Box flexDirection="column" borderStyle="round" borderColor={theme.paint('magenta')} paddingX={1} marginTop={1}>
      <Text bold>
        Tasks ({tasks.filter((t) => t.status === 'running').length} running, {tasks.length} in all){' '}
        <Text dimColor={theme.dim}>ctrl+t or esc to close</Text>
      </Text>
      {tasks.length === 0 ? (
        <Text dimColor={theme.dim}>No subagents, background commands or teammates yet.</Text>
      ) : null}
      {tasks.slice(-15).map((t) => (
        <Row key={t.id} t={t} live={false} />
      ))}
    </Box>
  );
}
