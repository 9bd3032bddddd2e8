// The prompt editor: several lines, a visible cursor; keys in ../editor.ts.
import { Box, Text } from 'ink';
import type { EditorState } from '../editor.js';
import { useTheme } from '../theme.js';

export function PromptInput({ state, placeholder }: { state: EditorState; placeholder?: string }) {
  const theme = useTheme();
  const lines = state.text.split('\n');
  let offset = 0;
  return (
    <Box flexDirection="column" borderStyle="round" borderColor={theme.paint('gray')} paddingX={1}>
      {lines.map((line, i) => {
        const start = offset;
        offset += line.length + 1;
        const prefix = i === 0 ? '> ' : '  ';
        const at = state.cursor - start;
        if (at < 0 || at > line.length)
          return (
            <Text key={i} wrap="wrap">
              {prefix}
              {line}
            </Text>
          );
        const showPlaceholder = !state.text && placeholder;
        return (
          <Text key={i} wrap="wrap">
            {prefix}
            {line.slice(0, at)}
            <Text inverse>{line[at] ?? ' '}</Text>
            {line.slice(at + 1)}
            {showPlaceholder ? <Text dimColor={theme.dim}>{placeholder}</Text> : null}
          </Text>
        );
      })}
    </Box>
  );
}
