// A list to choose one from: ↑/↓ (or typing to filter), Enter picks, Esc leaves. The /model and
// --resume pickers.
import { Box, Text } from 'ink';
import { useKeys } from '../keys.js';
import { ago, oneLine } from '../format.js';
import { useTheme } from '../theme.js';
import { useRefState } from '../useRefState.js';

export interface PickerItem {
  value: string;
  label: string;
  /** A second, dim line (a session's first prompt, a model's description). */
  detail?: string;
  /** Right after the label, dim (a session's age). */
  note?: string;
}

const VISIBLE = 8;

/** Saved sessions as picker rows: title or first prompt, age; the first prompt or id below. */
export function sessionItems(
  sessions: Array<{ sessionId: string; title?: string; firstPrompt: string; modifiedMs: number }>,
): PickerItem[] {
  return sessions.map((s) => ({
    value: s.sessionId,
    label: oneLine(s.title ?? s.firstPrompt, 70),
    note: ago(s.modifiedMs),
    detail: s.title ? oneLine(s.firstPrompt, 200) : s.sessionId,
  }));
}

export function Picker({
  title,
  items,
  onPick,
  initial = 0,
}: {
  title: string;
  items: PickerItem[];
  /** The chosen value, or undefined on Esc. */
  onPick: (value: string | undefined) => void;
  initial?: number;
}) {
  const theme = useTheme();
  const [getSelected, setSelected] = useRefState(initial);
  const [getFilter, setFilter] = useRefState('');
  const shown = () => {
    const f = getFilter().toLowerCase();
    return f ? items.filter((i) => `${i.label} ${i.detail ?? ''}`.toLowerCase().includes(f)) : items;
  };
  useKeys(
    (ch, key) => {
      const list = shown();
      const sel = Math.min(getSelected(), Math.max(0, list.length - 1));
      if (key.escape) return onPick(undefined);
      if (key.upArrow) return setSelected(Math.max(0, sel - 1));
      if (key.downArrow) return setSelected(Math.min(list.length - 1, sel + 1));
      if (key.return) return onPick(list[sel]?.value);
      if (key.backspace || key.delete) {
        setSelected(0);
        return setFilter(getFilter().slice(0, -1));
      }
      if (ch && !key.ctrl && !key.meta && !key.tab) {
        setSelected(0);
        setFilter(getFilter() + ch);
      }
    },
    { singleKeys: true },
  );
  const list = shown();
  const sel = Math.min(getSelected(), Math.max(0, list.length - 1));
  const from = Math.max(0, Math.min(sel - Math.floor(VISIBLE / 2), list.length - VISIBLE));
  return (
    <Box flexDirection="column" borderStyle="round" borderColor={theme.paint('cyan')} paddingX={1} marginTop={1}>
      <Text bold>
        {title}
        {getFilter() ? <Text color={theme.paint('cyan')}> filter: {getFilter()}</Text> : null}
      </Text>
      {list.length === 0 ? <Text dimColor={theme.dim}>Nothing matches.</Text> : null}
      {list.slice(from, from + VISIBLE).map((item, n) => {
        const here = from + n === sel;
        return (
          <Box key={item.value} flexDirection="column">
            <Text wrap="truncate-end" color={here ? theme.paint('cyan') : undefined}>
              {here ? '❯ ' : '  '}
              {item.label}
              {item.note ? <Text dimColor={theme.dim}> · {item.note}</Text> : null}
            </Text>
            {item.detail ? (
              <Text wrap="truncate-end" dimColor={theme.dim}>
                {'    '}
                {item.detail}
              </Text>
            ) : null}
          </Box>
        );
      })}
      <Text dimColor={theme.dim}>↑/↓ choose · type to filter · enter pick · esc cancel</Text>
    </Box>
  );
}
