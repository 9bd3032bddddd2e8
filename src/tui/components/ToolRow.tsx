// A tool call: a spinner while it runs, then ✓ or ✗, and a few lines of what it returned.
import { Box, Text } from 'ink';
import { headLines, oneLine, tailLines } from '../format.js';
import type { Item } from '../store.js';
import { useTheme } from '../theme.js';
import { Spinner } from './Spinner.js';

const PREVIEW_LINES = 4;

export function ToolRow({ item }: { item: Extract<Item, { kind: 'tool' }> }) {
  const theme = useTheme();
  const mark =
    item.status === 'running' ? (
      <Spinner />
    ) : item.status === 'ok' ? (
      <Text color={theme.paint('green')}>✓</Text>
    ) : (
      <Text color={theme.paint('red')}>✗</Text>
    );
  // Bash: where the output ended matters most; other tools: how it starts.
  const shown: string[] = [];
  if (item.result) {
    if (item.name === 'Bash') {
      const { lines, more } = tailLines(item.result, PREVIEW_LINES);
      if (more > 0) shown.push(`… ${more} line${more === 1 ? '' : 's'} before`);
      shown.push(...lines);
    } else {
      const { lines, more } = headLines(item.result, PREVIEW_LINES);
      shown.push(...lines);
      if (more > 0) shown.push(`… +${more} lines`);
    }
  }
  const paint = item.status === 'error' ? { color: theme.paint('red') } : { dimColor: theme.dim };
  return (
    <Box flexDirection="column" marginLeft={item.nested ? 2 : 0} marginTop={item.nested ? 0 : 1}>
      <Text wrap="truncate-end">
        {mark} <Text bold>{item.label}</Text>
      </Text>
      {shown.map((l, i) => (
        <Text key={i} {...paint} wrap="truncate-end">
          {i === 0 ? '  ⎿ ' : '    '}
          {oneLine(l, 400)}
        </Text>
      ))}
    </Box>
  );
}
