// One line under the prompt: model, permission mode, context in use, the session's cost, branch.
import { Box, Text } from 'ink';
import type { StatusInfo } from '../deps.js';
import { formatCost } from '../format.js';
import { useTheme } from '../theme.js';

const MODE_COLOR: Record<string, string> = {
  acceptEdits: 'magenta',
  plan: 'cyan',
  bypassPermissions: 'red',
  dontAsk: 'yellow',
};

export function StatusLine({
  status,
  contextTokens,
  costUsd,
  hint,
}: {
  status: StatusInfo;
  contextTokens: number;
  costUsd: number;
  hint?: string;
}) {
  const theme = useTheme();
  const pct = Math.min(100, Math.round((contextTokens / status.contextWindow) * 100));
  const parts = [`ctx ${pct}%`, formatCost(costUsd), ...(status.branch ? [`⎇ ${status.branch}`] : [])];
  return (
    <Box paddingX={1} justifyContent="space-between">
      <Text wrap="truncate-end">
        <Text color={theme.paint(MODE_COLOR[status.mode] ?? 'gray')}>⏵ {status.mode}</Text>
        <Text dimColor={theme.dim}> (shift+tab) · {status.model}</Text>
      </Text>
      <Text dimColor={theme.dim} wrap="truncate-start">
        {hint ?? parts.join(' · ')}
      </Text>
    </Box>
  );
}
