// An MCP server's request for input (elicitation): a form asked one field at a time (text,
// numbers, yes/no, a numbered choice), or a link to open. Enter takes a field, Esc declines,
// Ctrl+C cancels; after the last field the answers go back to the server.
import { Box, Text } from 'ink';
import { useKeys } from '../keys.js';
import { EMPTY, editorKey } from '../editor.js';
import { useTheme } from '../theme.js';
import { useRefState } from '../useRefState.js';
import { PromptInput } from './PromptInput.js';

export interface ElicitAnswer {
  action: 'accept' | 'decline' | 'cancel';
  content?: Record<string, unknown>;
}

interface Field {
  name: string;
  type: string;
  title: string;
  description?: string;
  choices?: Array<{ value: string; label: string }>;
  required: boolean;
}

function fieldsOf(payload: Record<string, unknown>): Field[] {
  const schema = (payload.requested_schema ?? {}) as { properties?: Record<string, any>; required?: string[] };
  const props = schema.properties ?? {};
  const order = Array.isArray(payload.property_order) ? (payload.property_order as string[]) : Object.keys(props);
  return order
    .filter((k) => props[k])
    .map((name) => {
      const p = props[name] ?? {};
      const choices: Field['choices'] = Array.isArray(p.enum)
        ? p.enum.map((v: unknown, i: number) => ({ value: String(v), label: String(p.enumNames?.[i] ?? v) }))
        : Array.isArray(p.oneOf)
          ? p.oneOf.map((o: any) => ({ value: String(o.const), label: String(o.title ?? o.const) }))
          : undefined;
      return {
        name,
        type: String(p.type ?? 'string'),
        title: String(p.title ?? name),
        ...(p.description ? { description: String(p.description) } : {}),
        ...(choices ? { choices } : {}),
        required: (schema.required ?? []).includes(name),
      };
    });
}

/** The typed text as the field's value, or an error to show. */
export function fieldValue(f: Field, typed: string): { value?: unknown; error?: string } {
  const t = typed.trim();
  if (!t) return f.required ? { error: `${f.title} is required.` } : {};
  if (f.choices) {
    const n = Number(t);
    const c = Number.isInteger(n) ? f.choices[n - 1] : f.choices.find((x) => x.value === t || x.label === t);
    return c ? { value: c.value } : { error: `Choose 1-${f.choices.length}.` };
  }
  if (f.type === 'boolean') {
    if (/^(y|yes|true)$/i.test(t)) return { value: true };
    if (/^(n|no|false)$/i.test(t)) return { value: false };
    return { error: 'Answer y or n.' };
  }
  if (f.type === 'number' || f.type === 'integer') {
    const n = Number(t);
    if (!Number.isFinite(n) || (f.type === 'integer' && !Number.isInteger(n)))
      return { error: `${f.title} must be ${f.type === 'integer' ? 'a whole number' : 'a number'}.` };
    return { value: n };
  }
  return { value: t };
}

export function ElicitationForm({
  payload,
  onAnswer,
}: {
  payload: Record<string, unknown>;
  onAnswer: (a: ElicitAnswer) => void;
}) {
  const theme = useTheme();
  const fields = fieldsOf(payload);
  const url = payload.mode === 'url' ? String(payload.url ?? '') : undefined;
  const [getIndex, setIndex] = useRefState(0);
  const [getValues, setValues] = useRefState<Record<string, unknown>>({});
  const [getEditor, setEditor] = useRefState(EMPTY);
  const [getError, setError] = useRefState<string | undefined>(undefined);

  useKeys(
    (ch, key) => {
      if (key.ctrl && ch === 'c') return onAnswer({ action: 'cancel' });
      if (key.escape) return onAnswer({ action: 'decline' });
      if (url !== undefined) {
        if (ch.toLowerCase() === 'y') onAnswer({ action: 'accept' });
        else if (ch.toLowerCase() === 'n') onAnswer({ action: 'decline' });
        return;
      }
      const r = editorKey(getEditor(), ch, key);
      if (r.submit === undefined) return setEditor(r.state);
      const f = fields[getIndex()];
      if (!f) return onAnswer({ action: 'accept', content: getValues() });
      const v = fieldValue(f, r.submit);
      if (v.error) {
        setEditor(EMPTY);
        return setError(v.error);
      }
      setError(undefined);
      setEditor(EMPTY);
      const values = { ...getValues(), ...(v.value !== undefined ? { [f.name]: v.value } : {}) };
      if (getIndex() + 1 >= fields.length) return onAnswer({ action: 'accept', content: values });
      setValues(values);
      setIndex(getIndex() + 1);
    },
    { singleKeys: true },
  );

  const f = fields[getIndex()];
  return (
    <Box flexDirection="column" borderStyle="round" borderColor={theme.paint('blue')} paddingX={1} marginTop={1}>
      <Text bold wrap="wrap">
        {String(payload.mcp_server_name ?? 'An MCP server')} asks: {String(payload.message ?? '')}
      </Text>
      {url !== undefined ? (
        <>
          <Text color={theme.paint('blue')} wrap="wrap">
            {url}
          </Text>
          <Text>Open it and continue? (y) yes · (n) no</Text>
        </>
      ) : f ? (
        <>
          <Text dimColor={theme.dim}>
            Field {getIndex() + 1} of {fields.length}
          </Text>
          <Text>
            {f.title}
            {f.required ? ' (required)' : ' (optional: Enter skips)'}
            {f.type === 'boolean' ? ' y/n' : f.type === 'number' || f.type === 'integer' ? ` (${f.type})` : ''}
          </Text>
          {f.description ? <Text dimColor={theme.dim}>{f.description}</Text> : null}
          {f.choices?.map((c, i) => (
            <Text key={c.value}>
              {'  '}
              {i + 1}. {c.label}
            </Text>
          ))}
          {getError() ? <Text color={theme.paint('red')}>{getError()}</Text> : null}
          <PromptInput state={getEditor()} />
        </>
      ) : (
        <Text>Nothing to fill in: Enter sends, Esc declines.</Text>
      )}
      <Text dimColor={theme.dim}>enter next · esc decline · ctrl+c cancel</Text>
    </Box>
  );
}
