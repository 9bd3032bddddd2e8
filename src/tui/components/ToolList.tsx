// Ctrl+O: the session's tool calls (and thoughts), newest last, one chosen with ↑/↓; Enter draws it again in full
// (the whole Bash output, the whole diff) below the transcript.
import { Box, Text } from 'ink';
import type { Expandable } from '../store.js';
import { useTheme } from '../theme.js';

const VISIBLE = 10;

export function ToolList({ tools, selected }: { tools: Expandable[]; selected: number }) {
  const theme = useTheme();
  // A window of VISIBLE rows around the chosen one.
  const from = Math.max(0, Math.min(selected - Math.floor(VISIBLE / 2), tools.length - VISIBLE));
  const shown = tools.slice(from, from + VISIBLE);
  return (
    <Box flexDirection="column" borderStyle="round" borderColor={theme.paint('cyan')} paddingX={1} marginTop={1}>
      <Text bold>
        Tool calls and thinking ({tools.length}){' '}
        <Text dimColor={theme.dim}>↑/↓ choose · Enter show in full · Esc close</Text>
      </Text>
      {tools.length === 0 ? <Text dimColor={theme.dim}>No tool calls yet.</Text> : null}
      {from > 0 ? <Text dimColor={theme.dim}> ↑ {from} more</Text> : null}
      {shown.map((t, i) => {
        const n = from + i;
        if (t.kind === 'thinking') {
          const lines = t.text.split('\n').length;
          return (
            <Text key={t.id} wrap="truncate-end" color={n === selected ? theme.paint('cyan') : undefined}>
              {n === selected ? '❯ ' : '  '}✻ Thinking
              <Text dimColor={theme.dim}>
                {' '}
                {lines} line{lines === 1 ? '' : 's'}
              </Text>
            </Text>
          );
        }
        const mark = t.status === 'running' || t.status === 'background' ? '…' : t.status === 'ok' ? '✓' : '✗';
        const lines = t.result ? t.result.replace(/\n+$/, '').split('\n').length : 0;
        return (
          <Text key={t.id} wrap="truncate-end" color={n === selected ? theme.paint('cyan') : undefined}>
            {n === selected ? '❯ ' : '  '}
            {t.nested ? '  ' : ''}
            {mark} {t.label}
            <Text dimColor={theme.dim}>
              {t.diff ? ` +${t.diff.added} −${t.diff.removed}` : lines ? ` ${lines} line${lines === 1 ? '' : 's'}` : ''}
            </Text>
          </Text>
        );
      })}
      {from + VISIBLE < tools.length ? <Text dimColor={theme.dim}> ↓ {tools.length - from - VISIBLE} more</Text> : null}
    </Box>
  );
}
