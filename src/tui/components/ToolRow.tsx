// A tool call: a spinner while it runs, then ✓ or ✗, and a few lines of what it returned (an
// edit's diff instead of its text). `full` draws the whole output or diff (Ctrl+O).
import { basename } from 'node:path';
import { Box, Text } from 'ink';
import { diffSummary } from '../diff.js';
import { headLines, oneLine, tailLines } from '../format.js';
import type { ToolItem } from '../store.js';
import { useTheme } from '../theme.js';
import { DiffView } from './DiffView.js';
import { Spinner } from './Spinner.js';

const PREVIEW_LINES = 4;
const DIFF_PREVIEW_ROWS = 12;

export function ToolRow({ item, full = false }: { item: ToolItem; full?: boolean }) {
  const theme = useTheme();
  const mark =
    item.status === 'running' ? (
      <Spinner />
    ) : item.status === 'background' ? (
      <Text dimColor={theme.dim}>…</Text>
    ) : item.status === 'ok' ? (
      <Text color={theme.paint('green')}>✓</Text>
    ) : (
      <Text color={theme.paint('red')}>✗</Text>
    );
  const shown: string[] = [];
  if (item.status === 'background') shown.push('running on in the background (ctrl+t)');
  if (item.result && !item.diff) {
    if (full) shown.push(...item.result.replace(/\n+$/, '').split('\n'));
    else if (item.name === 'Bash') {
      // Bash: where the output ended matters most; other tools: how it starts.
      const { lines, more } = tailLines(item.result, PREVIEW_LINES);
      if (more > 0) shown.push(`… ${more} line${more === 1 ? '' : 's'} before (ctrl+o to expand)`);
      shown.push(...lines);
    } else {
      const { lines, more } = headLines(item.result, PREVIEW_LINES);
      shown.push(...lines);
      if (more > 0) shown.push(`… +${more} lines (ctrl+o to expand)`);
    }
  }
  const paint = item.status === 'error' ? { color: theme.paint('red') } : { dimColor: theme.dim };
  return (
    <Box flexDirection="column" marginLeft={item.nested ? 2 : 0} marginTop={item.nested ? 0 : 1}>
      <Text wrap="truncate-end">
        {mark} <Text bold>{item.label}</Text>
        {full ? <Text dimColor={theme.dim}> (full output)</Text> : null}
      </Text>
      {item.diff ? (
        <>
          <Text dimColor={theme.dim} wrap="truncate-end">
            {'  ⎿ '}
            {diffSummary(item.diff, basename)}
          </Text>
          <DiffView
            diff={item.diff}
            indent={4}
            {...(full ? {} : { max: DIFF_PREVIEW_ROWS, hint: ' (ctrl+o to expand)' })}
          />
        </>
      ) : null}
      {shown.map((l, i) => (
        <Text key={i} {...paint} wrap={full ? 'wrap' : 'truncate-end'}>
          {i === 0 ? '  ⎿ ' : '    '}
          {full ? l : oneLine(l, 400)}
        </Text>
      ))}
    </Box>
  );
}
