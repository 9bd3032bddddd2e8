// A file edit as a coloured unified diff: line numbers, removed lines red, added lines green,
// context dim; cut to `max` rows with a count of the rest. The +/- signs stay without colour.
import { Box, Text } from 'ink';
import { type DiffRow, diffRows, type FileDiff } from '../diff.js';
import { useTheme } from '../theme.js';

export function DiffView({
  diff,
  max,
  indent = 0,
  hint = '',
}: {
  diff: FileDiff;
  max?: number;
  indent?: number;
  /** Said after the count of rows not shown. */
  hint?: string;
}) {
  const theme = useTheme();
  const rows = diffRows(diff);
  const shown = max !== undefined && rows.length > max ? rows.slice(0, max) : rows;
  const width = Math.max(1, ...rows.map((r) => String(r.num ?? '').length));
  const paint = (r: DiffRow) =>
    r.sign === '+'
      ? { color: theme.paint('green') }
      : r.sign === '-'
        ? { color: theme.paint('red') }
        : { dimColor: theme.dim };
  return (
    <Box flexDirection="column" marginLeft={indent}>
      {shown.map((r, i) =>
        r.sign === '…' ? (
          <Text key={i} dimColor={theme.dim}>
            {' '.repeat(width)} ⋮
          </Text>
        ) : (
          <Text key={i} wrap="truncate-end" {...paint(r)}>
            {String(r.num ?? '').padStart(width)} {r.sign} {r.text}
          </Text>
        ),
      )}
      {shown.length < rows.length ? (
        <Text dimColor={theme.dim}>
          {' '.repeat(width)} … +{rows.length - shown.length} lines{hint}
        </Text>
      ) : null}
    </Box>
  );
}
